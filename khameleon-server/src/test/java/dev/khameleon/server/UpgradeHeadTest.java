package dev.khameleon.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** What {@link UpgradeHead} lets through to the HTTP codec, and what it holds back for the handshake. */
class UpgradeHeadTest {
    private static final String UPGRADE = "GET /gallery HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
    }

    /** Everything the channel passed on, joined, or null if nothing. */
    private static String passed(EmbeddedChannel ch) {
        StringBuilder sb = new StringBuilder();
        for (ByteBuf b = ch.readInbound(); b != null; b = ch.readInbound()) {
            sb.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    @Test
    void upgradeSplitOverReads_passesTheRequestOnly_andHoldsWhatFollows() {
        EmbeddedChannel ch = new EmbeddedChannel(new UpgradeHead(1024));
        ch.writeInbound(ascii(UPGRADE.substring(0, 40)));
        assertNull(passed(ch), "no head end yet: nothing reaches the codec");
        ch.writeInbound(ascii(UPGRADE.substring(40) + "FRAME1"));
        ch.writeInbound(ascii("FRAME2"));
        assertEquals(UPGRADE, passed(ch), "the request alone; the frames wait for the handshake");
        UpgradeHead.release(ch.pipeline()); // no WebSocket decoder: the handshake did not happen
        assertNull(ch.pipeline().get(UpgradeHead.class));
        assertNull(passed(ch), "dropped, never shown to the codec as a second request");
        ch.writeInbound(ascii("later"));
        assertEquals("later", passed(ch));
        ch.finishAndReleaseAll();
    }

    @Test
    void requestThatIsNotAnUpgrade_passesWhole_andTheHandlerLeaves() {
        EmbeddedChannel ch = new EmbeddedChannel(new UpgradeHead(1024));
        String health = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /x HTTP/1.1\r\n";
        ch.writeInbound(ascii(health));
        assertEquals(health, passed(ch));
        assertNull(ch.pipeline().get(UpgradeHead.class));
        ch.finishAndReleaseAll();
    }

    @Test
    void upgradeWithABody_passesWhole() {
        EmbeddedChannel ch = new EmbeddedChannel(new UpgradeHead(1024));
        String withBody = UPGRADE.replace("\r\n\r\n", "\r\nContent-Length: 4\r\n\r\n") + "body";
        ch.writeInbound(ascii(withBody));
        assertEquals(withBody, passed(ch));
        assertNull(ch.pipeline().get(UpgradeHead.class));
        ch.finishAndReleaseAll();
    }

    @Test
    void headLongerThanTheLimit_passesSoTheCodecRefusesIt() {
        EmbeddedChannel ch = new EmbeddedChannel(new UpgradeHead(64));
        String endless = "GET /gallery HTTP/1.1\r\nX-Pad: " + "a".repeat(100);
        ch.writeInbound(ascii(endless));
        assertEquals(endless, passed(ch));
        assertNull(ch.pipeline().get(UpgradeHead.class));
        ch.finishAndReleaseAll();
    }
}
