package dev.khameleon.client;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ProtocolException;
import dev.khameleon.testing.ScriptedServer;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client's connection handling against a scripted server. */
class KhameleonClientConnectionTest {
    private static final int BLOCK_SIZE = 100;

    private static Block block(int request, int index, byte fill) {
        byte[] p = new byte[BLOCK_SIZE];
        java.util.Arrays.fill(p, fill);
        return Block.wrap(request, index, 2, p, 0);
    }

    @Test
    void fragmentedFrames_badFrames_reconnect_andCacheInvalidation() throws Exception {
        ScriptedServer.Script script = (n, ch) -> {
            if (n == 0) {
                ScriptedServer.sendText(ch, ScriptedServer.welcome(16, 0, BLOCK_SIZE));
                ScriptedServer.sendFragmented(ch, 0, block(1, 0, (byte) 11));
                ch.writeAndFlush(new BinaryWebSocketFrame(Unpooled.wrappedBuffer(new byte[] {1, 2, 3})));
            } else {
                ScriptedServer.sendText(ch, ScriptedServer.welcome(16, 500, BLOCK_SIZE));
                ScriptedServer.sendBlock(ch, 500, block(1, 0, (byte) 21));
                ScriptedServer.sendBlock(ch, 501, block(1, 1, (byte) 22));
            }
        };
        CompletableFuture<ProtocolException> protocolError = new CompletableFuture<>();
        CompletableFuture<Long> invalidated = new CompletableFuture<>();
        List<Response> responses = new CopyOnWriteArrayList<>();
        CompletableFuture<Response> complete = new CompletableFuture<>();
        try (ScriptedServer server = new ScriptedServer(script);
             KhameleonClient<?> client = KhameleonClient.builder().uri(server.uri()).application("app")
                     .cacheBlocks(16).backoff(Duration.ofMillis(10), Duration.ofMillis(100))
                     .listener(new ClientListener() {
                         @Override
                         public void onProtocolError(ProtocolException error) {
                             protocolError.complete(error);
                         }

                         @Override
                         public void onCacheInvalidated(long firstSeq) {
                             invalidated.complete(firstSeq);
                         }
                     }).build()) {
            client.request(1, r -> {
                responses.add(r);
                if (r.isComplete()) {
                    complete.complete(r);
                }
            });
            client.connect().get(10, TimeUnit.SECONDS);
            assertTrue(protocolError.get(10, TimeUnit.SECONDS).getMessage().contains("shorter"),
                    "the 3-byte frame is reported");
            assertEquals(500L, invalidated.get(10, TimeUnit.SECONDS), "the ring restarts where the server says");
            Response r = complete.get(10, TimeUnit.SECONDS);
            assertEquals(2, r.blocks().size());
            assertEquals(22, r.blocks().get(1).payloadBytes()[0]);
            Response first = responses.get(0);
            assertEquals(1, first.blocks().size());
            byte[] expected = new byte[BLOCK_SIZE];
            java.util.Arrays.fill(expected, (byte) 11);
            assertArrayEquals(expected, first.blocks().get(0).payloadBytes(), "a fragmented frame is reassembled");
            ControlMessage hello = server.received.poll(5, TimeUnit.SECONDS);
            ControlMessage.Hello h = assertInstanceOf(ControlMessage.Hello.class, hello);
            assertEquals("app", h.application());
            assertEquals(16, h.cacheBlocks());
            assertEquals(1, client.metrics().registrations());
        }
    }

    @Test
    void close_saysBye_andStatesFlowWhileConnected() throws Exception {
        ScriptedServer.Script script = (n, ch) -> ScriptedServer.sendText(ch, ScriptedServer.welcome(8, 0, BLOCK_SIZE));
        try (ScriptedServer server = new ScriptedServer(script)) {
            KhameleonClient<?> client = KhameleonClient.builder().uri(server.uri()).application("app").cacheBlocks(8)
                    .stateInterval(Duration.ofMillis(10)).build();
            client.connect().get(10, TimeUnit.SECONDS);
            client.onEvent(10, 10, System.currentTimeMillis());
            List<String> types = new ArrayList<>();
            while (!types.contains("state")) {
                ControlMessage m = server.received.poll(10, TimeUnit.SECONDS);
                assertTrue(m != null, "expected a state message, got " + types);
                types.add(m.type());
            }
            client.close();
            ControlMessage m;
            do {
                m = server.received.poll(10, TimeUnit.SECONDS);
            } while (m != null && !(m instanceof ControlMessage.Bye));
            assertInstanceOf(ControlMessage.Bye.class, m, "close() says bye");
            assertThrows(IllegalStateException.class, client::connect);
        }
    }

    @Test
    void refusedFirstConnection_failsTheConnectFuture() throws Exception {
        ScriptedServer.Script script = (n, ch) -> {
            ScriptedServer.sendText(ch, ControlMessage.ErrorMessage.of(
                    dev.khameleon.core.protocol.ErrorCode.UNKNOWN_APPLICATION, "no such app"));
            ch.close();
        };
        try (ScriptedServer server = new ScriptedServer(script);
             KhameleonClient<?> client = KhameleonClient.builder().uri(server.uri()).application("app").build()) {
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> client.connect().get(10, TimeUnit.SECONDS));
            assertTrue(e.getCause().getMessage().contains("no such app"), e.getCause().getMessage());
        }
    }

    @Test
    void builder_rejectsBadSettingsNamingThem() {
        var b = KhameleonClient.builder();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.cacheBlocks(0)).getMessage()
                .contains("cacheBlocks"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.uri(java.net.URI.create("http://x/")))
                .getMessage().contains("uri"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.application("")).getMessage()
                .contains("application"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.stateInterval(Duration.ZERO)).getMessage()
                .contains("stateInterval"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.healthyAfter(Duration.ZERO)).getMessage()
                .contains("healthyAfter"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> b.backoff(Duration.ofSeconds(2), Duration.ofSeconds(1))).getMessage().contains("backoff max"));
        assertTrue(assertThrows(IllegalStateException.class, b::build).getMessage().contains("uri"));
    }
}
