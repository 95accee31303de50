package dev.khameleon.simulator.live;

import dev.khameleon.core.protocol.BlockFrame;
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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.IntConsumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * A measurement tap on the client's WebSocket: an {@link HttpClient} (given to
 * {@code KhameleonClient.Builder.httpClient}) whose WebSockets hand every frame to the client's
 * own listener unchanged and, once the client has handled a complete block frame (so the block is
 * in its cache), tell {@code onBlock} the block's request id. The client is not changed: this is
 * how the live replay learns of arrivals, as the simulator's {@code PushSystem} does in its
 * {@code arrive}.
 *
 * <p>{@code onBlock} runs on the WebSocket's listener thread, after the client's own handling;
 * it must return quickly (the replay hands it to its own thread). Frames are copied only to read
 * their header.
 */
final class BlockTap extends HttpClient {
    private final HttpClient delegate;
    private final IntConsumer onBlock;

    BlockTap(HttpClient delegate, IntConsumer onBlock) {
        this.delegate = delegate;
        this.onBlock = onBlock;
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

    /** The client's listener, with block frames read on the side. */
    private final class Tapped implements WebSocket.Listener {
        private final WebSocket.Listener client;
        private ByteBuffer partial;

        Tapped(WebSocket.Listener client) {
            this.client = client;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            ByteBuffer frame;
            if (last && partial == null) {
                frame = data.duplicate();
            } else {
                ByteBuffer grown = ByteBuffer.allocate((partial == null ? 0 : partial.position()) + data.remaining());
                if (partial != null) {
                    grown.put(partial.flip());
                }
                grown.put(data.duplicate());
                partial = grown;
                frame = null;
                if (last) {
                    frame = partial.flip();
                    partial = null;
                }
            }
            int requestId = -1;
            if (frame != null) {
                try {
                    requestId = BlockFrame.decode(frame).block().requestId();
                } catch (RuntimeException e) {
                    requestId = -1; // the client reports a malformed frame itself
                }
            }
            CompletionStage<?> result = client.onBinary(ws, data, last);
            if (requestId >= 0) {
                onBlock.accept(requestId);
            }
            return result;
        }

        @Override
        public void onOpen(WebSocket ws) {
            client.onOpen(ws);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            return client.onText(ws, data, last);
        }

        @Override
        public CompletionStage<?> onPing(WebSocket ws, ByteBuffer message) {
            return client.onPing(ws, message);
        }

        @Override
        public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
            return client.onPong(ws, message);
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
            return client.onClose(ws, statusCode, reason);
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            client.onError(ws, error);
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
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return delegate.sendAsync(request, handler);
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                                                            HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
        return delegate.sendAsync(request, handler, pushPromiseHandler);
    }
}
