package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A client may send its hello right behind the upgrade request, before the 101 (in the same TCP
 * packet): the server reads it as the session's hello, as it would one sent after the answer.
 */
@Timeout(60)
class HelloWithUpgradeTest {
    private KhameleonServer server;

    @AfterEach
    void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    private static byte[] helloFrame() {
        ControlMessage.Hello hello = new ControlMessage.Hello(Protocol.VERSION, "gallery", 8, Optional.empty(),
                List.of(), Optional.empty());
        return RawClient.encodeFrame(true, 1, ControlCodec.encode(hello).getBytes(StandardCharsets.UTF_8));
    }

    /** Regression: the hello was left in the HTTP codec and dropped with it; the client got missing_hello after 5 s. */
    @Test
    void helloInTheUpgradesPacket_isWelcomed() throws Exception {
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(1)
                .application(Application.builder("gallery").blockSource(TestApps.inMemory(4, 2, 16)).build())
                .build().start();
        byte[] hello = helloFrame();
        try (RawClient c = new RawClient(server.port(), "/gallery", 1 << 16, hello)) {
            RawClient.Frame first = c.readFrame();
            assertEquals(1, first.opcode(), "a text frame first: the welcome");
            ControlMessage m = ControlCodec.decode(new String(first.payload(), StandardCharsets.UTF_8));
            assertInstanceOf(ControlMessage.Welcome.class, m, m.toString());
            RawClient.Frame next = c.readFrame();
            assertNotEquals(8, next.opcode(), "not closed: the session pushes");
        }
    }

    /** The hello and a second message in the same packet, each whole, arrive in order. */
    @Test
    void helloAndAStateInTheUpgradesPacket_areReadInOrder() throws Exception {
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(1)
                .application(Application.builder("gallery").blockSource(TestApps.inMemory(4, 2, 16)).build())
                .build().start();
        byte[] hello = helloFrame();
        byte[] bye = RawClient.encodeFrame(true, 1, ControlCodec.encode(new ControlMessage.Bye())
                .getBytes(StandardCharsets.UTF_8));
        byte[] both = java.util.Arrays.copyOf(hello, hello.length + bye.length);
        System.arraycopy(bye, 0, both, hello.length, bye.length);
        try (RawClient c = new RawClient(server.port(), "/gallery", 1 << 16, both)) {
            ControlMessage m = ControlCodec.decode(new String(c.readFrame().payload(), StandardCharsets.UTF_8));
            assertInstanceOf(ControlMessage.Welcome.class, m, m.toString());
            assertEquals(1000, c.readUntilClose().closeStatus(), "the bye after the hello ends the session normally");
        }
    }
}
