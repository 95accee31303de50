package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ControlMessage.ErrorMessage;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One WebSocket connection attempt of the client and what it receives: it sends the hello,
 * accepts the welcome, caches the blocks, applies the server's messages and tells the
 * {@link ClientListener}; a malformed frame closes it with status 1007. When it ends, the
 * {@link Reconnector} opens the next one if it was the live one.
 *
 * <p><b>Threading.</b> The JDK's WebSocket calls the listener methods one at a time, so the
 * reassembly buffers and the accepted welcome are confined to that thread. What other threads
 * read (the socket, the outbox, whether it is welcomed, when it last heard anything) is volatile;
 * what it shares with the client goes through {@link ClientState}'s transitions. {@link #lost} may
 * come from any thread and takes effect once. Listener calls run on the upcall executor, in the
 * order this connection makes them; one that throws is logged and contained.
 */
final class Connection implements WebSocket.Listener {
    // The client's messages keep the client's logger, so logging configurations still apply.
    private static final Logger LOG = LoggerFactory.getLogger(KhameleonClient.class);
    static final int NORMAL_CLOSURE = 1000;
    static final int ABNORMAL_CLOSURE = 1006;

    /** The parts of the client that each of its connections works with. */
    record Parts(ClientState state, Handshake handshake, CacheManager cacheManager,
            PredictorManager<?> predictorManager, ClientListener listener, Executor upcallExecutor,
            LongSupplier nanoClock, URI uri) {
    }

    private final ClientState state;
    private final Handshake handshake;
    private final CacheManager cacheManager;
    private final PredictorManager<?> predictorManager;
    private final ClientListener listener;
    private final Executor upcallExecutor;
    private final LongSupplier nanoClock;
    private final URI uri;
    private final Reconnector reconnector;
    private final FrameAssembler frames = new FrameAssembler();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final CompletableFuture<Void> closedByServer = new CompletableFuture<>();
    private volatile WebSocket webSocket;
    private volatile Outbox outbox;
    private volatile boolean welcomed;
    /** Whether this connection's hello asked to resume. */
    private volatile boolean askedToResume;
    /** When this connection last received anything (frame, message, ping or pong), on the nano clock. */
    private volatile long lastHeardNanos;
    /** The welcome this connection accepted, or null; listener thread only. */
    private Welcome welcome;

    /** A connection attempt working with {@code parts}, whose end it reports to {@code reconnector}. */
    Connection(Parts parts, Reconnector reconnector) {
        this.state = parts.state();
        this.handshake = parts.handshake();
        this.cacheManager = parts.cacheManager();
        this.predictorManager = parts.predictorManager();
        this.listener = parts.listener();
        this.upcallExecutor = parts.upcallExecutor();
        this.nanoClock = parts.nanoClock();
        this.uri = parts.uri();
        this.reconnector = reconnector;
    }

    /** Takes the opened WebSocket and the outbox over it; {@link ClientState#attach} calls it under the lock. */
    void attach(WebSocket ws) {
        webSocket = ws;
        outbox = new Outbox(ws);
    }

    /** The opened WebSocket, or null before it opened. Any thread. */
    WebSocket webSocket() {
        return webSocket;
    }

    /** The outbox of the opened WebSocket, or null before it opened. Any thread. */
    Outbox outbox() {
        return outbox;
    }

    /** Whether this connection's welcome was accepted and the session set up. Any thread. */
    boolean welcomed() {
        return welcomed;
    }

    /** Whether this connection's hello asked to resume. Any thread. */
    boolean askedToResume() {
        return askedToResume;
    }

    /** When this connection last received anything, on the nano clock. Any thread. */
    long lastHeardNanos() {
        return lastHeardNanos;
    }

    @Override
    public void onOpen(WebSocket ws) {
        lastHeardNanos = nanoClock.getAsLong();
        if (!state.attach(this, ws)) {
            ws.abort();
            return;
        }
        List<ControlMessage> hello = handshake.hello(state.resumeToken());
        askedToResume = Handshake.asksToResume(hello);
        for (ControlMessage m : hello) {
            outbox.control(ControlCodec.encode(m));
        }
        ws.request(1);
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
        lastHeardNanos = nanoClock.getAsLong();
        try {
            if (frames.text(data, last)) {
                onControl(ControlCodec.decodeFromServer(frames.message()));
            }
        } catch (ProtocolException e) {
            protocolError(e);
            return null;
        }
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
        lastHeardNanos = nanoClock.getAsLong();
        int bytes;
        BlockFrame decoded;
        try {
            if (!welcomed) {
                throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "block frame before welcome");
            }
            if (!frames.binary(data, last)) {
                ws.request(1);
                return null;
            }
            ByteBuffer frame = frames.frame();
            bytes = frame.remaining();
            decoded = BlockFrame.decode(frame);
            Handshake.checkBlock(decoded, welcome);
        } catch (ProtocolException e) {
            protocolError(e);
            return null;
        }
        predictorManager.recordReceived(bytes, decoded.seq());
        cacheManager.onBlock(decoded.seq(), decoded.block(), decoded.generation());
        ws.request(1);
        return null;
    }

    private void onControl(ControlMessage message) {
        if (message instanceof Welcome w) {
            onWelcome(w);
        } else if (message instanceof ControlMessage.ResumeToken t) {
            state.resumeToken(this, t.token());
        } else if (message instanceof ControlMessage.Rebind r) {
            Handshake.checkRebind(r, welcomed ? welcome : null);
            int[] ids = r.requestIds();
            cacheManager.rebind(ids, r.generations());
            tell(l -> l.onRebind(ids));
        } else if (message instanceof ErrorMessage e) {
            LOG.warn("server error {}: {}", e.code(), e.message());
            tell(l -> l.onServerError(e));
            Optional<JsonNode> rejected = state.rejected(this, e);
            rejected.ifPresent(s -> tell(l -> l.onStateRejected(s, e.message())));
            if (!welcomed) {
                state.firstWelcome().completeExceptionally(new IllegalStateException("server refused the session: "
                        + e.code() + ": " + e.message()));
            }
        }
    }

    private void onWelcome(Welcome w) {
        if (welcomed) {
            throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "a second welcome");
        }
        handshake.checkWelcome(w);
        Optional<ClientState.Accepted> accepted = state.accept(this, w);
        if (accepted.isEmpty()) {
            return;
        }
        welcome = w;
        frames.expectBlocksOf(w.blockSize());
        // Keep the cache only if the server continues exactly where the ring stopped.
        boolean resumed = handshake.resumed(w, askedToResume);
        if (!resumed) {
            cacheManager.reset(w.firstSeq());
        }
        JsonNode resendScope = accepted.get().resendScope();
        if (resendScope != null) {
            outbox.scope(ControlCodec.encode(new ControlMessage.Scope(resendScope)));
        }
        predictorManager.resend();
        welcomed = true;
        predictorManager.tick();
        tell(l -> l.onConnected(w));
        if (askedToResume) {
            String refusal = w.resumeRefused().orElse("");
            LOG.info("session {} {}", w.session(), resumed ? "resumed at sequence number " + w.firstSeq()
                    : "started afresh, resume refused: " + (refusal.isEmpty() ? "not offered" : refusal));
            tell(l -> l.onResume(resumed, w, refusal));
        }
        if (accepted.get().again() && !resumed) {
            tell(l -> l.onCacheInvalidated(w.firstSeq()));
        }
        state.firstWelcome().complete(w);
    }

    private void protocolError(ProtocolException e) {
        LOG.warn("protocol error from server {}: {}", uri, e.getMessage());
        tell(l -> l.onProtocolError(e));
        WebSocket ws = webSocket;
        outbox.abandon();
        ws.sendClose(ErrorCode.INVALID_MESSAGE.closeStatus(), e.code().wireName())
                .whenComplete((w, error) -> ws.abort());
        lost(ErrorCode.INVALID_MESSAGE.closeStatus(), e.getMessage(), e);
    }

    @Override
    public CompletionStage<?> onPing(WebSocket ws, ByteBuffer message) {
        // The JDK's WebSocket answers with a pong by itself.
        lastHeardNanos = nanoClock.getAsLong();
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
        lastHeardNanos = nanoClock.getAsLong();
        ws.request(1);
        return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
        closedByServer.complete(null);
        lost(statusCode, reason, null);
        return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
        closedByServer.complete(null);
        lost(ABNORMAL_CLOSURE, String.valueOf(error.getMessage()), error);
    }

    /**
     * This connection is over: nothing more is sent on it and, if it was the live one, the
     * listener hears of it and the client reconnects unless it is closed. Any thread; only the
     * first call counts.
     */
    void lost(int status, String reason, Throwable error) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        Outbox out = outbox;
        if (out != null) {
            out.abandon();
        }
        Optional<ClientState.Ended> end = state.end(this);
        if (end.isEmpty()) {
            return;
        }
        boolean retry = end.get().retry();
        CompletableFuture<Welcome> first = state.firstWelcome();
        if (!welcomed && !first.isDone()) {
            first.completeExceptionally(error != null ? error
                    : new IllegalStateException("connection closed before welcome: " + status + " " + reason));
        }
        LOG.info("connection to {} ended: {} {}{}", uri, status, reason, retry ? "; reconnecting" : "");
        tell(l -> l.onDisconnected(status, reason, retry));
        if (retry) {
            reconnector.scheduleReconnect(end.get().welcomedForNanos());
        }
    }

    /**
     * Says goodbye after everything queued, closes the WebSocket and waits at most about a second
     * for each side of the close handshake, then aborts it; nothing if it never opened. For the
     * client's {@code close()}, on the caller's thread.
     */
    void sayBye() {
        Outbox out = outbox;
        WebSocket ws = webSocket;
        if (out == null) {
            return;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        out.finish(ControlCodec.encode(new ControlMessage.Bye()), () -> {
            ws.sendClose(NORMAL_CLOSURE, "bye").whenComplete((w, e) -> done.complete(null));
        });
        try {
            done.get(1, TimeUnit.SECONDS);
            closedByServer.get(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("close handshake did not finish in time: {}", e.toString());
        }
        ws.abort();
    }

    private void tell(Consumer<ClientListener> call) {
        try {
            upcallExecutor.execute(() -> {
                try {
                    call.accept(listener);
                } catch (RuntimeException e) {
                    LOG.warn("client listener threw; contained", e);
                }
            });
        } catch (RuntimeException e) {
            LOG.debug("listener call not delivered: {}", e.toString());
        }
    }
}
