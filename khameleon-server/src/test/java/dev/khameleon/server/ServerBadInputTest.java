package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.testing.RawClient;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.URI;
import java.net.http.WebSocketHandshakeException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each kind of bad input gets its error code and close status, while a bystander session on the same
 * server keeps receiving blocks throughout.
 */
class ServerBadInputTest {
    private static final int N = 50;
    private static final long[] HORIZONS = {50, 150};

    private static KhameleonServer server;
    private static URI uri;
    private static TestClient bystander;

    /**
     * A predictor whose state lists probabilities explicitly, {@code {"ids": [..], "p": [..]}}, so a
     * client can send negative, non-finite or too-large probabilities and ids out of range.
     */
    static Distribution decodeExplicit(JsonNode state) {
        JsonNode ids = state.get("ids");
        JsonNode ps = state.get("p");
        if (ids == null || ps == null || !ids.isArray() || !ps.isArray() || ids.size() != ps.size()) {
            throw new IllegalArgumentException("state must be {\"ids\": [...], \"p\": [...]} of equal length");
        }
        Distribution.Builder b = Distribution.builder(N, HORIZONS);
        for (int j = 0; j < HORIZONS.length; j++) {
            for (int k = 0; k < ids.size(); k++) {
                b.explicit(j, ids.get(k).asInt(), ps.get(k).asDouble());
            }
        }
        return b.build();
    }

    @BeforeAll
    static void startServer() {
        ServerPredictor explicit = ServerBadInputTest::decodeExplicit;
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(7)
                .fixedBytesPerSecond(200_000)
                .maxFramePayloadBytes(4096)
                .allowedOrigins("https://good.example")
                .application(Application.builder("test")
                        .blockSource(TestApps.inMemory(N, 3, 512))
                        .predictor(explicit)
                        .horizons(HORIZONS)
                        .build())
                .application(Application.builder("secret")
                        .blockSource(TestApps.inMemory(N, 3, 512))
                        .authenticator(dev.khameleon.server.spi.Authenticator.sharedSecret("open sesame"))
                        .build())
                .build().start();
        uri = URI.create("ws://127.0.0.1:" + server.port() + "/test");
        bystander = TestClient.open(uri, "test", 100);
        bystander.nextBlock();
    }

    @AfterAll
    static void stopServer() {
        try {
            // Whatever the other tests did, the bystander is still being served.
            bystander.assertStillServed();
            bystander.close();
        } finally {
            server.close();
        }
    }

    static Stream<Arguments> badMessagesAfterHello() {
        return Stream.of(
                Arguments.of("{not json", "malformed_json", 1007),
                Arguments.of("[1, 2, 3]", "malformed_json", 1007),
                Arguments.of("{\"type\": \"rate\", \"time\": 1, \"bytesPerSecond\": NaN}", "malformed_json", 1007),
                Arguments.of("{\"type\": \"teleport\"}", "unknown_type", 1002),
                Arguments.of("{\"type\": \"welcome\"}", "unknown_type", 1002),
                Arguments.of("{\"type\": \"hello\", \"protocol\": 1, \"application\": \"test\", \"cacheBlocks\": 9}",
                        "duplicate_hello", 1002),
                Arguments.of("{\"type\": \"rate\", \"time\": 1, \"bytesPerSecond\": -5}", "invalid_message", 1007),
                Arguments.of("{\"type\": \"request\", \"time\": 1, \"request\": 50}", "invalid_message", 1007),
                Arguments.of("{\"type\": \"state\", \"time\": 1, \"state\": {\"ids\": [1], \"p\": [-0.5]}}",
                        "invalid_state", 1007),
                Arguments.of("{\"type\": \"state\", \"time\": 1, \"state\": {\"ids\": [1], \"p\": [1e400]}}",
                        "invalid_state", 1007),
                Arguments.of("{\"type\": \"state\", \"time\": 1, \"state\": {\"ids\": [1, 2], \"p\": [0.7, 0.7]}}",
                        "invalid_state", 1007),
                Arguments.of("{\"type\": \"state\", \"time\": 1, \"state\": {\"ids\": [77], \"p\": [0.5]}}",
                        "invalid_state", 1007),
                Arguments.of("{\"type\": \"state\", \"time\": 1, \"state\": \"gibberish\"}", "invalid_state", 1007),
                // Parser limits, within the frame limit: a field twice, nesting deeper than 1,000,
                // a number longer than 1,000 characters.
                Arguments.of("{\"type\": \"rate\", \"time\": 1, \"time\": 2, \"bytesPerSecond\": 5}", "malformed_json", 1007),
                Arguments.of("{\"type\": \"state\", \"time\": 1, \"state\": " + "[".repeat(1001) + "]".repeat(1001) + "}",
                        "malformed_json", 1007),
                Arguments.of("{\"type\": \"rate\", \"time\": 1, \"bytesPerSecond\": " + "9".repeat(1001) + "}",
                        "malformed_json", 1007),
                // Numbers the parser reads but that are out of range: beyond the double range, above the
                // protocol's rate bound, a 400-digit integer inside a state (not a double either).
                Arguments.of("{\"type\": \"rate\", \"time\": 1, \"bytesPerSecond\": 1e999999}", "invalid_message", 1007),
                Arguments.of("{\"type\": \"rate\", \"time\": 1, \"bytesPerSecond\": 1e13}", "invalid_message", 1007),
                Arguments.of("{\"type\": \"state\", \"time\": 1, \"state\": {\"ids\": [1], \"p\": [" + "9".repeat(400) + "]}}",
                        "invalid_state", 1007));
    }

    @ParameterizedTest
    @MethodSource("badMessagesAfterHello")
    void badMessage_getsErrorAndCloseStatus(String text, String code, int status) {
        try (TestClient c = TestClient.open(uri, "test", 100)) {
            c.sendText(text);
            assertClosedWith(c, code, status);
        }
    }

    private static void assertClosedWith(TestClient c, String code, int status) {
        ControlMessage.ErrorMessage e = c.awaitError();
        assertEquals(code, e.code(), e.message());
        assertFalse(e.message().isBlank());
        TestClient.Close close = c.awaitClose();
        assertEquals(status, close.status());
        assertEquals(code, close.reason());
    }

    static Stream<Arguments> badFirstMessages() {
        return Stream.of(
                Arguments.of("{\"type\": \"state\", \"time\": 1, \"state\": {}}", "missing_hello", 1002),
                Arguments.of("{\"type\": \"hello\", \"protocol\": 2, \"application\": \"test\", \"cacheBlocks\": 9}",
                        "unsupported_version", 1002),
                Arguments.of("{\"type\": \"hello\", \"protocol\": 1, \"application\": \"other\", \"cacheBlocks\": 9}",
                        "unknown_application", 1008),
                Arguments.of("{\"type\": \"hello\", \"protocol\": 1, \"application\": \"test\", \"cacheBlocks\": 2000000}",
                        "limit_exceeded", 1008),
                Arguments.of("{\"type\": \"hello\", \"protocol\": 1, \"application\": \"test\", \"cacheBlocks\": 0}",
                        "invalid_message", 1007));
    }

    @ParameterizedTest
    @MethodSource("badFirstMessages")
    void badFirstMessage_getsErrorAndCloseStatus(String text, String code, int status) {
        try (TestClient c = TestClient.connect(uri)) {
            c.sendText(text);
            assertClosedWith(c, code, status);
        }
    }

    @Test
    void binaryFrameFromClient_isUnsupportedData() {
        try (TestClient c = TestClient.open(uri, "test", 100)) {
            c.sendBinary(new byte[] {1, 2, 3});
            assertClosedWith(c, "unsupported_data", 1003);
        }
    }

    /** Regression: a connection closed in the middle of a fragmented message was logged as an unexpected error with a stack trace. */
    @Test
    void connectionClosedInsideAFragmentedMessage_isNoServerError() throws Exception {
        long opened = server.metrics().sessionsOpened();
        try (RawClient c = new RawClient(server.port(), "/test", 1 << 16)) {
            c.sendText("{\"type\":\"hello\",\"protocol\":1,\"application\":\"test\",\"cacheBlocks\":10}");
            TestClient.await(() -> server.metrics().sessionsOpened() == opened + 1, "the session is open");
            c.sendFrame(false, 0x1, "{\"type\":".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        TestClient.await(() -> server.metrics().activeSessions() == 1, "only the bystander is left");
        assertEquals(0L, server.metrics().errorsByCode().getOrDefault("internal_error", 0L));
    }

    @Test
    void oversizedFrame_closesWithMessageTooBig() {
        try (TestClient c = TestClient.open(uri, "test", 100)) {
            c.sendText("{\"type\": \"state\", \"time\": 1, \"state\": \"" + "x".repeat(5000) + "\"}");
            TestClient.Close close = c.awaitClose();
            assertEquals(1009, close.status());
        }
        TestClient.await(() -> server.metrics().errorsByCode().getOrDefault("frame_too_large", 0L) >= 1,
                "the server counts the oversized frame");
    }

    @Test
    void wrongToken_isUnauthorizedAndRightTokenIsWelcome() {
        URI secret = URI.create("ws://127.0.0.1:" + server.port() + "/secret");
        try (TestClient c = TestClient.connect(secret)) {
            c.send(new ControlMessage.Hello(1, "secret", 10, Optional.of("guess")));
            assertClosedWith(c, "unauthorized", 1008);
        }
        try (TestClient c = TestClient.connect(secret)) {
            c.send(new ControlMessage.Hello(1, "secret", 10, Optional.of("open sesame")));
            assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
        }
    }

    private static int handshakeStatus(URI target, Map<String, String> headers) {
        CompletionException e = assertThrows(CompletionException.class,
                () -> TestClient.connectAsync(target, headers).orTimeout(10, TimeUnit.SECONDS).join());
        WebSocketHandshakeException h = assertInstanceOf(WebSocketHandshakeException.class, e.getCause());
        return h.getResponse().statusCode();
    }

    @Test
    void unknownPath_isRefusedWith404() {
        assertEquals(404, handshakeStatus(URI.create("ws://127.0.0.1:" + server.port() + "/nope"), Map.of()));
        assertTrue(server.metrics().handshakesRefused() >= 1);
    }

    @Test
    void disallowedOrigin_isRefusedWith403AndAllowedOriginIsAccepted() {
        assertEquals(403, handshakeStatus(uri, Map.of("Origin", "https://evil.example")));
        try (TestClient c = TestClient.connectAsync(uri, Map.of("Origin", "https://good.example"))
                .orTimeout(10, TimeUnit.SECONDS).join()) {
            c.send(ControlMessage.Hello.of("test", 10));
            assertInstanceOf(ControlMessage.Welcome.class, c.nextControl());
        }
    }
}
