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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * A JDK {@link HttpClient} whose WebSockets hand every event to the listener they were opened with,
 * unchanged, and tell an {@link Observer} of each complete block frame they receive, just before and
 * just after that listener handled it: how a test or the live replay learns which blocks arrived
 * without changing the client. Everything else is delegated to a plain client.
 *
 * <p>The observer runs on the WebSocket's listener thread and must return quickly. Frames are
 * copied only to read their header; a binary message that is not a block frame is passed on
 * unobserved (the listener reports it).
 */
public class BlockFrameTap extends HttpClient {
    /** What a tap tells of the block frames its WebSockets receive. */
    public interface Observer {
        /** A new WebSocket opened: the {@code connection}-th (from 1). */
        default void opened(int connection) {
        }

        /** {@code frame} arrived on the {@code connection}-th WebSocket; the listener has not seen it yet. */
        default void beforeListener(int connection, BlockFrame frame) {
        }

        /** The listener has handled {@code frame} (so a client has it in its cache). */
        default void afterListener(int connection, BlockFrame frame) {
        }
    }

    private final HttpClient delegate;
    private final Observer observer;
    private int connections;

    /** A tap on {@code delegate}'s WebSockets that tells {@code observer}. */
    public BlockFrameTap(HttpClient delegate, Observer observer) {
        this.delegate = delegate;
        this.observer = observer;
    }

    private synchronized int opened() {
        return ++connections;
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

    /** Passes every call on to the listener, telling the observer of each complete block frame. */
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
            observer.opened(connection);
            listener.onOpen(ws);
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            BlockFrame frame = frame(whole(data, last));
            if (frame != null) {
                observer.beforeListener(connection, frame);
            }
            CompletionStage<?> result = listener.onBinary(ws, data, last);
            if (frame != null) {
                observer.afterListener(connection, frame);
            }
            return result;
        }

        /** The whole message once its last part came, else null; parts are copied, {@code data} is not consumed. */
        private ByteBuffer whole(ByteBuffer data, boolean last) {
            if (last && partial.position() == 0) {
                return data.duplicate();
            }
            ByteBuffer grown = ByteBuffer.allocate(partial.position() + data.remaining());
            grown.put(partial.flip()).put(data.duplicate());
            if (!last) {
                partial = grown;
                return null;
            }
            partial = ByteBuffer.allocate(0);
            return grown.flip();
        }

        private BlockFrame frame(ByteBuffer message) {
            if (message == null) {
                return null;
            }
            try {
                return BlockFrame.decode(message);
            } catch (RuntimeException e) {
                return null; // not a frame: the listener reports it as a protocol error
            }
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
