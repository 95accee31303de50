package dev.khameleon.testing;

import dev.khameleon.core.protocol.BlockFrame;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A JDK {@link HttpClient} that records, for each WebSocket it opens, the block frames the
 * connection receives (sequence number, request, block index), before the client's own listener
 * sees them: what a test needs to check which frames a server pushed, and in which order.
 * Everything else is delegated to a plain client. Any thread may read {@link #frames}.
 */
public final class FrameTap extends HttpClient {
    /** One block frame: the {@code connection}-th WebSocket opened (from 1) received it. */
    public record Frame(int connection, long seq, int requestId, int index) {
    }

    private final HttpClient delegate = HttpClient.newHttpClient();
    private final List<Frame> frames = new ArrayList<>();
    private int connections;

    /** The frames received so far, in order. */
    public synchronized List<Frame> frames() {
        return List.copyOf(frames);
    }

    /** How many WebSockets have opened so far. */
    public synchronized int connections() {
        return connections;
    }

    private synchronized int opened() {
        return ++connections;
    }

    private synchronized void record(Frame f) {
        frames.add(f);
    }

    @Override
    public WebSocket.Builder newWebSocketBuilder() {
        WebSocket.Builder b = delegate.newWebSocketBuilder();
        return new WebSocket.Builder() {
            @Override
            public WebSocket.Builder header(String name, String value) {
                b.header(name, value);
                return this;
            }

            @Override
            public WebSocket.Builder connectTimeout(Duration timeout) {
                b.connectTimeout(timeout);
                return this;
            }

            @Override
            public WebSocket.Builder subprotocols(String mostPreferred, String... lesserPreferred) {
                b.subprotocols(mostPreferred, lesserPreferred);
                return this;
            }

            @Override
            public CompletableFuture<WebSocket> buildAsync(URI uri, WebSocket.Listener listener) {
                return b.buildAsync(uri, new Tapped(listener));
            }
        };
    }

    /** Passes every call on to the client's listener, recording complete block frames first. */
    private final class Tapped implements WebSocket.Listener {
        private final WebSocket.Listener listener;
        private int connection;
        private ByteBuffer partial = ByteBuffer.allocate(0);

        Tapped(WebSocket.Listener listener) {
            this.listener = listener;
        }

        @Override
        public void onOpen(WebSocket ws) {
            connection = opened();
            listener.onOpen(ws);
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            ByteBuffer whole;
            if (last && partial.position() == 0) {
                whole = data.duplicate();
            } else {
                ByteBuffer grown = ByteBuffer.allocate(partial.position() + data.remaining());
                grown.put(partial.flip()).put(data.duplicate());
                partial = grown;
                whole = last ? grown.flip() : null;
                if (last) {
                    partial = ByteBuffer.allocate(0);
                }
            }
            if (whole != null) {
                try {
                    BlockFrame f = BlockFrame.decode(whole);
                    record(new Frame(connection, f.seq(), f.block().requestId(), f.block().index()));
                } catch (RuntimeException e) {
                    // Not a frame: the client's listener reports it as a protocol error.
                }
            }
            return listener.onBinary(ws, data, last);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            return listener.onText(ws, data, last);
        }

        @Override
        public CompletionStage<?> onPing(WebSocket ws, ByteBuffer message) {
            return listener.onPing(ws, message);
        }

        @Override
        public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
            return listener.onPong(ws, message);
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            return listener.onClose(ws, statusCode, reason);
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            listener.onError(ws, error);
        }
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
        return delegate.cookieHandler();
    }

    @Override
    public Optional<Duration> connectTimeout() {
        return delegate.connectTimeout();
    }

    @Override
    public Redirect followRedirects() {
        return delegate.followRedirects();
    }

    @Override
    public Optional<ProxySelector> proxy() {
        return delegate.proxy();
    }

    @Override
    public SSLContext sslContext() {
        return delegate.sslContext();
    }

    @Override
    public SSLParameters sslParameters() {
        return delegate.sslParameters();
    }

    @Override
    public Optional<Authenticator> authenticator() {
        return delegate.authenticator();
    }

    @Override
    public Version version() {
        return delegate.version();
    }

    @Override
    public Optional<Executor> executor() {
        return delegate.executor();
    }

    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        return delegate.send(request, handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                                                            HttpResponse.BodyHandler<T> handler) {
        return delegate.sendAsync(request, handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                                                            HttpResponse.PushPromiseHandler<T> push) {
        return delegate.sendAsync(request, handler, push);
    }
}
