package dev.khameleon.server;

import dev.khameleon.testing.RawClient;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A close the server starts is a handshake: the server keeps reading until the client answers its close
 * frame, so a client still sending when the close frame arrives is not reset (which would cost it the
 * close frame's code), and a client that never answers is closed after the close timeout.
 */
class CloseHandshakeTest {
    private static final String HELLO = "{\"type\":\"hello\",\"protocol\":1,\"application\":\"test\",\"cacheBlocks\":10}";

    private KhameleonServer server;

    /** A valid rate report, so that only the close decides how the session ends. */
    private static String rate(long time, double bytesPerSecond) {
        return "{\"type\":\"rate\",\"time\":" + time + ",\"bytesPerSecond\":" + bytesPerSecond + "}";
    }

    private KhameleonServer start(long closeTimeoutMillis) {
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(7)
                .closeTimeout(java.time.Duration.ofMillis(closeTimeoutMillis))
                .application(Application.builder("test").blockSource(TestApps.inMemory(4, 2, 64)).build())
                .build().start();
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aClientStillSendingAfterTheCloseFrame_isNotReset_andItsAnswerEndsTheConnection() throws IOException {
        start(30_000);
        try (RawClient client = new RawClient(server.port(), "/test", 1 << 16)) {
            client.sendText(HELLO);
            client.sendText("{\"type\":\"no such message\"}");
            RawClient.Frame close = client.readUntilClose();
            assertEquals(1002, close.closeStatus(), "unknown_type closes with protocol error");
            // Sent after the server's close frame: a server that had already closed its socket answers
            // these bytes with a reset, and the client's own close frame below then fails.
            client.sendText(rate(1, 1000));
            client.sendText(rate(2, 2000));
            TestClient.await(() -> server.metrics().errorsByCode().getOrDefault("unknown_type", 0L) == 1,
                    "the server counted the error");
            client.sendFrame(true, 0x8, close.payload());
            assertNull(client.readFrame(), "the server closes cleanly after the answer, long before its close timeout");
        }
    }

    @Test
    void aClientThatNeverAnswers_isClosedAfterTheCloseTimeout() throws IOException {
        start(200);
        try (RawClient client = new RawClient(server.port(), "/test", 1 << 16)) {
            client.sendText(HELLO);
            client.sendText("not json");
            RawClient.Frame close = client.readUntilClose();
            assertTrue(new String(close.payload(), 2, close.payload().length - 2, StandardCharsets.UTF_8)
                    .contains("malformed_json"), "the close reason names the error");
            assertNull(client.readFrame(), "closed by the server without the client's answer");
        }
    }

    @Test
    void serverShutdown_reachesAClientThatKeepsSending_asGoingAway() throws IOException {
        start(30_000);
        try (RawClient client = new RawClient(server.port(), "/test", 1 << 16)) {
            client.sendText(HELLO);
            TestClient.await(() -> server.metrics().activeSessions() == 1, "the session is open");
            Thread closer = new Thread(server::close, "server-close");
            closer.start();
            // Rate reports keep flowing while the server shuts down, as a page's would.
            for (int i = 0; i < 20; i++) {
                client.sendText(rate(i + 1, 1000 + i));
            }
            RawClient.Frame close = client.readUntilClose();
            assertEquals(1001, close.closeStatus(), "a server shutting down says going away");
            client.sendText(rate(100, 1));
            client.sendFrame(true, 0x8, close.payload());
            assertNull(client.readFrame(), "a clean end after the answer");
            try {
                closer.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
