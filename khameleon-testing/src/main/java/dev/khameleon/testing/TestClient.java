package dev.khameleon.testing;

import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An independent test client over the JDK's {@link java.net.http.WebSocket}: it shares no code
 * with the server except the protocol codecs, queues what it receives and records the close.
 */
public final class TestClient implements AutoCloseable {
    /** A close as the client saw it. */
    public record Close(int status, String reason) {
    }

    /** A received block frame with its arrival time and frame length. */
    public record Received(BlockFrame frame, long nanos, int bytes) {
    }

    /** How long every wait of this client lasts before it fails the test. */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** Control messages received, in arrival order. */
    public final BlockingQueue<ControlMessage> control = new LinkedBlockingQueue<>();
    /** Block frames received, in arrival order. */
    public final BlockingQueue<Received> blocks = new LinkedBlockingQueue<>();
    /** Completes with the server's close, or exceptionally on a connection error. */
    public final CompletableFuture<Close> closed = new CompletableFuture<>();
    /** Bytes of block frames received so far. */
    public final AtomicLong bytesReceived = new AtomicLong();
    private final WebSocket ws;

    private TestClient(WebSocket ws) {
        this.ws = ws;
    }

    /** Opens a WebSocket to {@code uri} with extra handshake {@code headers}, on a new JDK client. */
    public static CompletableFuture<TestClient> connectAsync(URI uri, Map<String, String> headers) {
        return connectAsync(HttpClient.newHttpClient(), uri, headers);
    }

    /** Opens a WebSocket to {@code uri} with extra handshake {@code headers}, on {@code http}. */
    public static CompletableFuture<TestClient> connectAsync(HttpClient http, URI uri, Map<String, String> headers) {
        CompletableFuture<TestClient> result = new CompletableFuture<>();
        Listener listener = new Listener();
        WebSocket.Builder b = http.newWebSocketBuilder().connectTimeout(TIMEOUT);
        headers.forEach(b::header);
        b.buildAsync(uri, listener).whenComplete((ws, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
            } else {
                result.complete(listener.client);
            }
        });
        return result;
    }

    /** Opens a WebSocket to {@code uri}, failing after {@link #TIMEOUT}; sends nothing. */
    public static TestClient connect(URI uri) {
        return connectAsync(uri, Map.of()).orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** Connects and completes the hello/welcome exchange. */
    public static TestClient open(URI uri, String application, int cacheBlocks) {
        TestClient c = connect(uri);
        c.send(ControlMessage.Hello.of(application, cacheBlocks));
        ControlMessage m = c.nextControl();
        if (!(m instanceof ControlMessage.Welcome)) {
            throw new AssertionError("expected welcome, got " + m);
        }
        return c;
    }

    /** Polls {@code condition} every 10 ms until it holds; fails after {@link #TIMEOUT}. */
    public static void await(java.util.function.BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /** Waits for the error message the server sends before closing, skipping anything else. */
    public ControlMessage.ErrorMessage awaitError() {
        while (true) {
            if (nextControl() instanceof ControlMessage.ErrorMessage e) {
                return e;
            }
        }
    }

    /** Sends {@code m} encoded as the protocol's text frame, waiting until it is sent. */
    public void send(ControlMessage m) {
        sendText(ControlCodec.encode(m));
    }

    /** Sends {@code text} as one text frame, as it is, waiting until it is sent. */
    public void sendText(String text) {
        ws.sendText(text, true).orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** Sends {@code bytes} as one binary frame, waiting until it is sent. */
    public void sendBinary(byte[] bytes) {
        ws.sendBinary(ByteBuffer.wrap(bytes), true).orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
    }

    /** Sends a state message at {@code time} with {@code stateJson} as its state. */
    public void sendState(long time, String stateJson) {
        sendText("{\"type\":\"state\",\"time\":" + time + ",\"state\":" + stateJson + "}");
    }

    /** Sends a ping with an 8-byte payload and waits until it is sent. */
    public void sendPing() {
        ws.sendPing(ByteBuffer.allocate(8)).join();
    }

    /** The next control message received; fails after {@link #TIMEOUT}. */
    public ControlMessage nextControl() {
        return poll(control, "control message");
    }

    /** The next block frame received; fails after {@link #TIMEOUT}. */
    public Received nextBlock() {
        return poll(blocks, "block");
    }

    private static <T> T poll(BlockingQueue<T> queue, String what) {
        try {
            T t = queue.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (t == null) {
                throw new AssertionError("no " + what + " within " + TIMEOUT);
            }
            return t;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /**
     * Asserts that the session is still served: a block arrives after those already received, and
     * the session is open. For a bystander that must outlive what other clients did.
     */
    public void assertStillServed() {
        blocks.clear();
        nextBlock();
        if (closed.isDone()) {
            throw new AssertionError("the session was closed: " + closed.join());
        }
    }

    /** Waits for the server's close; fails after {@link #TIMEOUT}. */
    public Close awaitClose() {
        return closed.orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
    }

    @Override
    public void close() {
        if (!ws.isOutputClosed()) {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "done");
        }
        ws.abort();
    }

    private static final class Listener implements WebSocket.Listener {
        TestClient client;
        private final StringBuilder text = new StringBuilder();
        private final ByteArrayOutputStream binary = new ByteArrayOutputStream();

        @Override
        public void onOpen(WebSocket webSocket) {
            client = new TestClient(webSocket);
            webSocket.request(1);
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                client.control.add(ControlCodec.decodeFromServer(text.toString()));
                text.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            byte[] chunk = new byte[data.remaining()];
            data.get(chunk);
            binary.writeBytes(chunk);
            if (last) {
                byte[] frame = binary.toByteArray();
                binary.reset();
                client.bytesReceived.addAndGet(frame.length);
                client.blocks.add(new Received(BlockFrame.decode(frame), System.nanoTime(), frame.length));
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            client.closed.complete(new Close(statusCode, reason));
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            if (client != null) {
                client.closed.completeExceptionally(error);
            }
        }
    }
}
