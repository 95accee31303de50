package dev.khameleon.server;

import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.testing.RawClient;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attacks by one hostile client on a server with the gallery's predictor, over loopback: frames
 * the WebSocket layer must refuse, messages built to be expensive to parse or to integrate, and
 * clients that trickle bytes to hold a connection past its deadlines. Each gets its close code,
 * and a bystander session on the same server is still served at the end.
 */
class HostileClientTest {
    private static final GridLayout GRID = new GridLayout(30, 40, 0, 0, 160, 120);
    private static final long HELLO_TIMEOUT_MILLIS = 1_000;
    private static final long HANDSHAKE_TIMEOUT_MILLIS = 1_000;
    /** Trickled bytes come this often: well within every deadline, so the connection is never idle. */
    private static final long TRICKLE_MILLIS = 100;

    private static KhameleonServer server;
    private static URI uri;
    private static TestClient bystander;

    @BeforeAll
    static void startServer() {
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(11)
                .fixedBytesPerSecond(100_000)
                .helloTimeout(Duration.ofMillis(HELLO_TIMEOUT_MILLIS))
                .handshakeTimeout(Duration.ofMillis(HANDSHAKE_TIMEOUT_MILLIS))
                .application(Application.builder("gallery")
                        .blockSource(TestApps.inMemory(GRID.requestCount(), 3, 256))
                        .predictor(GaussianGridPredictor.builder(GRID).build())
                        .build())
                .build().start();
        uri = URI.create("ws://127.0.0.1:" + server.port() + "/gallery");
        bystander = TestClient.open(uri, "gallery", 100);
        bystander.nextBlock();
    }

    @AfterAll
    static void stopServer() {
        try {
            // Whatever the attacks did, the bystander is still being served, and nothing was a server error.
            bystander.assertStillServed();
            assertEquals(0L, server.metrics().errorsByCode().getOrDefault("internal_error", 0L));
            bystander.close();
        } finally {
            server.close();
        }
    }

    private static RawClient raw() throws IOException {
        return new RawClient(server.port(), "/gallery", 1 << 16);
    }

    private static String text(RawClient.Frame f) {
        return new String(f.payload(), StandardCharsets.UTF_8);
    }

    @Test
    void continuationFrameWithoutAStart_isAProtocolError() throws IOException {
        try (RawClient c = raw()) {
            c.sendFrame(true, 0x0, "{}".getBytes(StandardCharsets.UTF_8));
            assertEquals(1002, c.readUntilClose().closeStatus());
        }
    }

    @Test
    void invalidUtf8InATextFrame_isInvalidPayloadData() throws IOException {
        try (RawClient c = raw()) {
            // 0xC3 0x28: a two-byte sequence whose second byte is not a continuation byte.
            c.sendFrame(true, 0x1, new byte[] {'"', (byte) 0xC3, 0x28, '"'});
            assertEquals(1007, c.readUntilClose().closeStatus());
        }
    }

    @Test
    void pingLongerThan125Bytes_isAProtocolError() throws IOException {
        try (RawClient c = raw()) {
            c.sendFrame(true, 0x9, new byte[126]);
            assertEquals(1002, c.readUntilClose().closeStatus());
        }
    }

    /** Frame headers the WebSocket layer refuses, each with its close status, before reading any payload. */
    static Stream<Arguments> badFrameHeaders() {
        byte[] mask = {1, 2, 3, 4};
        return Stream.of(
                // A 64-bit length of 2^63 − 1: refused from the header, nothing of that size is allocated.
                Arguments.of("text frame announcing 2^63 - 1 bytes", concat(new byte[] {(byte) 0x81, (byte) 0xFF,
                        0x7F, -1, -1, -1, -1, -1, -1, -1}, mask), 1009),
                Arguments.of("text frame with a negative 64-bit length", concat(new byte[] {(byte) 0x81, (byte) 0xFF,
                        -1, -1, -1, -1, -1, -1, -1, -1}, mask), 1002),
                Arguments.of("unmasked text frame", new byte[] {(byte) 0x81, 0x02, '{', '}'}, 1002),
                Arguments.of("reserved bit set (no extension was agreed)", concat(new byte[] {(byte) 0xC1, (byte) 0x82},
                        mask, new byte[] {'{' ^ 1, '}' ^ 2}), 1002),
                Arguments.of("reserved opcode 0x3", concat(new byte[] {(byte) 0x83, (byte) 0x80}, mask), 1002),
                Arguments.of("fragmented ping", concat(new byte[] {(byte) 0x09, (byte) 0x80}, mask), 1002),
                Arguments.of("close frame with a one-byte body", concat(new byte[] {(byte) 0x88, (byte) 0x81}, mask,
                        new byte[] {3 ^ 1}), 1002));
    }

    private static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFrameHeaders")
    void badFrameHeader_isClosedWithItsStatus(String what, byte[] bytes, int status) throws IOException {
        try (RawClient c = raw()) {
            c.sendBytes(bytes);
            assertEquals(status, c.readUntilClose().closeStatus(), what);
        }
    }

    @Test
    void fragmentsAddingUpBeyondTheFrameLimit_closeWithMessageTooBig() throws IOException {
        byte[] part = new byte[30_000]; // each fragment within the 64 KiB limit, three together beyond it
        Arrays.fill(part, (byte) 'x');
        try (RawClient c = raw()) {
            c.sendFrame(false, 0x1, part);
            c.sendFrame(false, 0x0, part);
            c.sendFrame(false, 0x0, part);
            assertEquals(1009, c.readUntilClose().closeStatus());
        }
    }

    /**
     * A hello trickled a byte at a time (each well within every idle limit) never completes before
     * the hello timeout, which runs from the WebSocket handshake whatever arrives meanwhile.
     */
    @Test
    void helloTrickledByteByByte_isClosedAtTheHelloTimeout() throws Exception {
        byte[] frame = RawClient.encodeFrame(true, 0x1,
                "{\"type\":\"hello\",\"protocol\":1,\"application\":\"gallery\",\"cacheBlocks\":10}"
                        .getBytes(StandardCharsets.UTF_8));
        long missing = server.metrics().errorsByCode().getOrDefault("missing_hello", 0L);
        // The hello timeout runs from the server's end of the handshake, which can come before raw()
        // returns here: the clock starts before the handshake, so the lower bound holds under load.
        long start = System.nanoTime();
        try (RawClient c = raw()) {
            int sent = 0;
            while (!c.serverClosed() && sent < frame.length - 1) {
                c.sendBytes(new byte[] {frame[sent++]});
                Thread.sleep(TRICKLE_MILLIS);
            }
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(sent < frame.length - 1, "the server closed before the hello was complete");
            assertTrue(elapsedMillis >= HELLO_TIMEOUT_MILLIS, "closed after " + elapsedMillis + " ms");
        }
        TestClient.await(() -> server.metrics().errorsByCode().getOrDefault("missing_hello", 0L) == missing + 1,
                "the server counts the missing hello");
    }

    /**
     * A message trickled a byte at a time after the hello keeps bytes arriving but no frame
     * complete: the read-idle timeout counts frames, so the session is closed as idle, though
     * the connection never went quiet.
     */
    @Test
    void messageTrickledByteByByte_isClosedAtTheReadIdleTimeout() throws Exception {
        long idleMillis = 1_000;
        try (KhameleonServer idle = KhameleonServer.builder().host("127.0.0.1").port(0).seed(12)
                .fixedBytesPerSecond(1_000) // few blocks: the unread ones stay within the socket buffers
                .readIdleTimeout(Duration.ofMillis(idleMillis))
                .application(Application.builder("gallery").blockSource(TestApps.inMemory(10, 1, 64)).build())
                .build().start();
             RawClient c = new RawClient(idle.port(), "/gallery", 1 << 16)) {
            // The idle clock runs from the last complete frame, the hello: start before sending it.
            long start = System.nanoTime();
            c.sendText("{\"type\":\"hello\",\"protocol\":1,\"application\":\"gallery\",\"cacheBlocks\":10}");
            TestClient.await(() -> idle.metrics().activeSessions() == 1, "the session is open");
            byte[] frame = RawClient.encodeFrame(true, 0x1,
                    "{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":100000}".getBytes(StandardCharsets.UTF_8));
            int sent = 0;
            while (idle.metrics().activeSessions() == 1 && sent < frame.length - 1) {
                c.sendBytes(new byte[] {frame[sent++]});
                Thread.sleep(TRICKLE_MILLIS);
            }
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(sent < frame.length - 1, "the session closed before the message was complete");
            assertTrue(elapsedMillis >= idleMillis, "closed after " + elapsedMillis + " ms");
            RawClient.Frame close = c.readUntilClose();
            assertEquals(1001, close.closeStatus());
            assertEquals(1L, idle.metrics().errorsByCode().get("idle_timeout"));
        }
    }

    /** Whether the session has read {@code count} requests within {@code millis}. */
    private static boolean readWithin(KhameleonServer server, long count, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000;
        while (server.sessionMetrics().get(0).requestsReceived() < count) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }

    /**
     * Over a real socket: a client sending messages faster than {@code maxInboundBytesPerSecond}
     * is not read on once its bucket is in debt (the clock is frozen here, so it never refills),
     * and is not refused for it either.
     */
    @Test
    void messagesBeyondTheInboundRate_areNotReadButTheSessionStaysOpen() throws Exception {
        int requests = 50;
        try (KhameleonServer paced = KhameleonServer.builder().host("127.0.0.1").port(0).seed(13).clock(() -> 0L)
                .fixedBytesPerSecond(1_000).maxInboundBytesPerSecond(10 * 1024)
                .application(Application.builder("gallery").blockSource(TestApps.inMemory(100, 1, 64)).build())
                .build().start()) {
            try (TestClient c = TestClient.open(URI.create("ws://127.0.0.1:" + paced.port() + "/gallery"), "gallery", 10)) {
                // One message at a time, the next only once the last was read, so that no socket read
                // carries several: reading must stop exactly when the bucket goes into debt.
                int read = 0;
                for (int i = 0; i < requests; i++) {
                    c.sendText("{\"type\":\"request\",\"time\":" + i + ",\"request\":" + i + "}");
                    if (!readWithin(paced, i + 1, 2_000)) {
                        break;
                    }
                    read = i + 1;
                }
                // Each request counts about 1,070 bytes and the hello about 1,100: some nine fit 10 KiB.
                assertTrue(read >= 5 && read <= 12, read + " requests were read before reading stopped");
                c.sendText("{\"type\":\"request\",\"time\":100,\"request\":99}");
                Thread.sleep(300);
                assertEquals(read, paced.sessionMetrics().get(0).requestsReceived(),
                        "the request that went into debt was the last one read");
                assertFalse(c.closed.isDone(), "a client over the rate is read no faster, not refused");
            }
        }
    }

    /**
     * An upgrade request trickled a byte at a time (slowloris) is answered 408 and closed at the
     * handshake timeout, which runs from the accept whatever arrives meanwhile.
     */
    @Test
    void upgradeRequestTrickledByteByByte_isClosedAtTheHandshakeTimeout() throws Exception {
        byte[] request = ("GET /gallery HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: MDEyMzQ1Njc4OWFiY2RlZg==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        try (Socket s = new Socket()) {
            // The server's deadline starts when it accepts, which can be before connect() returns
            // here: the clock starts before connecting, so the lower bound holds however late this
            // thread runs.
            long start = System.nanoTime();
            s.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
            s.setSoTimeout((int) TRICKLE_MILLIS);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            StringBuilder answer = new StringBuilder();
            boolean closed = false;
            for (int sent = 0; !closed && sent < request.length - 1; sent++) {
                try {
                    out.write(request[sent]);
                    out.flush();
                } catch (IOException e) {
                    closed = true; // the server closed (or reset) the connection
                    break;
                }
                try {
                    for (int b = in.read(); b >= 0; b = in.read()) {
                        answer.append((char) b);
                    }
                    closed = true;
                } catch (java.net.SocketTimeoutException e) {
                    // nothing yet: trickle on
                } catch (IOException e) {
                    closed = true;
                }
            }
            long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(closed, "the server closed the connection before the request was complete");
            assertTrue(elapsedMillis >= HANDSHAKE_TIMEOUT_MILLIS, "closed after " + elapsedMillis + " ms");
            assertTrue(answer.toString().startsWith("HTTP/1.1 408"), "answer: " + answer);
        }
    }

    /**
     * Field names whose hashes collide (each {@code "Aa"} swapped for {@code "B@"}) are refused as
     * malformed JSON once they make a long chain in the parser's symbol table, and leave nothing
     * behind there: hellos carrying fewer of them (unknown fields, which clients may send) are
     * welcomed afterwards, round after round, though together they would make a chain as long.
     */
    @Test
    void hashCollidingFieldNames_areRefused_andDoNotPoisonTheParserForOtherSessions() {
        try (TestClient c = TestClient.connect(uri)) {
            c.sendText(helloWithCollidingFields(0, 2048));
            ControlMessage.ErrorMessage e = c.awaitError();
            assertEquals(ErrorCode.MALFORMED_JSON.wireName(), e.code(), e.message());
            assertEquals(1007, c.awaitClose().status());
        }
        for (int round = 0; round < 4; round++) {
            try (TestClient c = TestClient.connect(uri)) {
                c.sendText(helloWithCollidingFields(round * 100, (round + 1) * 100));
                assertInstanceOf(ControlMessage.Welcome.class, c.nextControl(), "round " + round);
            }
        }
    }

    /** A hello with the extra fields {@code from..to}: 11 pairs of {@code "Aa"} or {@code "B@"}, all of one hash. */
    private static String helloWithCollidingFields(int from, int to) {
        StringBuilder sb = new StringBuilder("{\"type\":\"hello\",\"protocol\":1,\"application\":\"gallery\",\"cacheBlocks\":10");
        for (int i = from; i < to; i++) {
            sb.append(",\"");
            for (int b = 0; b < 11; b++) {
                sb.append((i >> b & 1) == 0 ? "Aa" : "B@");
            }
            sb.append("\":0");
        }
        return sb.append('}').toString();
    }

    /**
     * A valid forecast carrying an unknown field of deeply nested junk (the predictor ignores it)
     * that fills the frame: such states are held as text between messages and jobs (not as a tree
     * of an object per value), rebuilt by the job, and planned; the session goes on.
     */
    @Test
    void forecastWithAFrameOfNestedJunk_isPlanned() {
        String forecast = "\"x\":3200,\"y\":1800,\"horizons\":[50,150,250,500],"
                + "\"mean\":[[3200,1800],[3200,1800],[3200,1800],[3200,1800]],"
                + "\"cov\":[[400,0,400],[400,0,400],[400,0,400],[400,0,400]]";
        String nested = "[".repeat(990) + "]".repeat(990);
        String junk = "[" + (nested + ",").repeat(31) + nested + "]";
        try (TestClient c = TestClient.open(uri, "gallery", 100)) {
            long replans = server.metrics().replans();
            for (int t = 1; t <= 20; t++) {
                c.sendState(t, "{" + forecast + ",\"junk\":" + junk + "}");
            }
            TestClient.await(() -> server.metrics().replans() > replans, "a junk-laden state is planned");
            c.blocks.clear();
            c.nextBlock();
            assertFalse(c.closed.isDone(), "closed: " + c.control);
        }
    }

    /**
     * Regression: a valid forecast with huge finite variances closed the session with
     * {@code invalid_state} naming a NaN covariance it never sent; it is planned like any other,
     * and the session goes on.
     */
    @Test
    void forecastWithHugeFiniteVariances_isPlanned() {
        try (TestClient c = TestClient.open(uri, "gallery", 100)) {
            StringBuilder means = new StringBuilder();
            StringBuilder covs = new StringBuilder();
            for (int j = 0; j < 4; j++) {
                means.append(j == 0 ? "" : ",").append("[3200,1800]");
                covs.append(j == 0 ? "" : ",").append("[1e300,5e299,1e300]");
            }
            c.sendState(1, "{\"x\":3200,\"y\":1800,\"horizons\":[50,150,250,500],\"mean\":[" + means
                    + "],\"cov\":[" + covs + "]}");
            TestClient.await(() -> server.sessionMetrics().stream()
                    .anyMatch(m -> m.statesReceived() == 1 && m.replans() >= 1), "the state is planned");
            // Such a forecast puts no mass on the grid, so it may plan nothing; the session goes on.
            c.sendState(2, "{\"x\":3200,\"y\":1800,\"horizons\":[50,150,250,500],"
                    + "\"mean\":[[3200,1800],[3200,1800],[3200,1800],[3200,1800]],"
                    + "\"cov\":[[400,0,400],[400,0,400],[400,0,400],[400,0,400]]}");
            c.blocks.clear();
            c.nextBlock();
            assertFalse(c.closed.isDone(), "closed: " + c.control);
            assertEquals(0L, server.metrics().errorsByCode().getOrDefault("invalid_state", 0L));
        }
    }
}
