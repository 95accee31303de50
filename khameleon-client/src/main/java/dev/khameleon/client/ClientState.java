package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ControlMessage.ErrorMessage;
import dev.khameleon.core.protocol.ControlMessage.PredictionState;
import dev.khameleon.core.protocol.ControlMessage.RateReport;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.Protocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.http.WebSocket;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Which connection of the client is live, and what the client carries from one connection to the
 * next: whether it is closed, the future of its first welcome, the last welcome, the resume
 * token, the request scope and the state the server rejected. Each synchronized method is one
 * transition of that state, made atomically. As the predictor manager's sink, and for the request
 * scope, it also sends on the live connection, once the transition is made and the lock released.
 *
 * <p><b>The client's one lock.</b> This object's monitor is the only lock of the client's
 * connection handling: it guards everything here and, by {@link Reconnector}'s contract, the
 * back-off and the idle watchdog. One lock suffices because all of it changes together (a
 * welcome, a lost connection or {@code close()} touches the live connection and the carried state
 * in one step), and nothing under it waits: the methods only read and write fields, while every
 * send, listener call, future completion and model decode happens after the lock is released. The
 * lock may be held while taking a leaf lock ({@code Outbox}'s, {@code PredictorManager}'s, the
 * scheduler's), which never call back into the client while they hold theirs, so no cycle, and no
 * deadlock, can form. What a connection keeps for itself is confined to its listener thread or
 * volatile ({@link Connection}).
 */
final class ClientState implements PredictorManager.Sink {
    // The client's messages keep the client's logger, so logging configurations still apply.
    private static final Logger LOG = LoggerFactory.getLogger(KhameleonClient.class);

    private final String application;
    private final boolean reconnect;
    private final LongSupplier nanoClock;

    private Connection live;
    /** Whether the live connection's welcome was accepted: from then on {@link #scope} sends on it. */
    private boolean liveAccepted;
    /** When the live connection's welcome was accepted, on the nano clock. */
    private long liveWelcomedAtNanos;
    /** The last state sent on the live connection, or null. */
    private JsonNode liveLastState;
    private boolean closed;
    private boolean everConnected;
    private CompletableFuture<Welcome> firstWelcome;
    private Welcome lastWelcome;
    /** The newest resume token of the session, or null. */
    private String resumeToken;
    /** The application's request scope, re-sent after every welcome that offers it; null before the first. */
    private JsonNode scope;
    /** The last state the server rejected: never sent again (it would be rejected again). */
    private JsonNode rejectedState;

    /**
     * The state of a client of {@code application} (named in errors) that re-establishes lost
     * connections if {@code reconnect}, timing sessions on {@code nanoClock}.
     */
    ClientState(String application, boolean reconnect, LongSupplier nanoClock) {
        this.application = application;
        this.reconnect = reconnect;
        this.nanoClock = nanoClock;
    }

    /**
     * What {@link #accept} decided for a welcome on the live connection: whether an earlier
     * connection was welcomed ({@code again}), and the scope to send on this one (null: none).
     */
    record Accepted(boolean again, JsonNode resendScope) {
    }

    /** What {@link #end} decided for the live connection: whether to reconnect, and how long it was welcomed (-1: never). */
    record Ended(boolean retry, long welcomedForNanos) {
    }

    /** What {@link #close} took over: the live connection and the first welcome's future, each null if none. */
    record Closing(Connection live, CompletableFuture<Welcome> firstWelcome) {
    }

    /**
     * Starts the client's first connection attempt: the future completes with the first welcome.
     *
     * @throws IllegalStateException if the client is closed or already started
     */
    synchronized CompletableFuture<Welcome> begin() {
        if (closed) {
            throw new IllegalStateException("client is closed");
        }
        if (firstWelcome != null) {
            throw new IllegalStateException("connect() was already called");
        }
        firstWelcome = new CompletableFuture<>();
        return firstWelcome;
    }

    /** The future of the first welcome (null before {@link #begin}). */
    synchronized CompletableFuture<Welcome> firstWelcome() {
        return firstWelcome;
    }

    /** Whether {@link #close} was called. */
    synchronized boolean isClosed() {
        return closed;
    }

    /** Makes {@code c} the live connection, unless the client is closed; returns whether it did. */
    synchronized boolean makeLive(Connection c) {
        if (closed) {
            return false;
        }
        live = c;
        liveAccepted = false;
        liveWelcomedAtNanos = 0;
        liveLastState = null;
        return true;
    }

    /** The live connection, or null if there is none or the client is closed. */
    synchronized Connection liveUnlessClosed() {
        return closed ? null : live;
    }

    /**
     * Gives {@code c} its opened WebSocket, atomically with the check that it is still live (so
     * {@link #close} either sees it without a socket and skips the goodbye, or says goodbye on it).
     *
     * @return whether {@code c} is live; if not, the caller aborts {@code ws}
     */
    synchronized boolean attach(Connection c, WebSocket ws) {
        c.attach(ws);
        return live == c;
    }

    /** The newest resume token, or null. */
    synchronized String resumeToken() {
        return resumeToken;
    }

    /**
     * Accepts {@code w} as the welcome of {@code c}: it becomes the client's last welcome and its
     * resume token the session's. Empty if {@code c} is no longer live (the welcome is ignored).
     */
    synchronized Optional<Accepted> accept(Connection c, Welcome w) {
        if (live != c) {
            return Optional.empty();
        }
        JsonNode resendScope = w.supports(Protocol.FEATURE_SCOPE) ? scope : null;
        liveAccepted = true;
        boolean again = everConnected;
        everConnected = true;
        lastWelcome = w;
        liveWelcomedAtNanos = nanoClock.getAsLong();
        resumeToken = w.resumeToken().orElse(null);
        return Optional.of(new Accepted(again, resendScope));
    }

    /** Takes {@code token} as the session's resume token if {@code c} is live and welcomed. */
    synchronized void resumeToken(Connection c, String token) {
        if (live == c && c.welcomed()) {
            resumeToken = token;
        }
    }

    /**
     * Notes the server's error {@code e} on {@code c}: an {@code invalid_state} error on the live
     * connection makes the last state sent on it the rejected state, which is returned.
     */
    synchronized Optional<JsonNode> rejected(Connection c, ErrorMessage e) {
        if (e.knownCode().orElse(null) == ErrorCode.INVALID_STATE && live == c && liveLastState != null) {
            rejectedState = liveLastState;
            return Optional.of(rejectedState);
        }
        return Optional.empty();
    }

    /**
     * Ends {@code c}: if it was live there is no live connection any more, and the result says
     * whether to reconnect. A connection that asked to resume and was not welcomed forgets the
     * resume token. Empty if {@code c} was not live.
     */
    synchronized Optional<Ended> end(Connection c) {
        if (live != c) {
            return Optional.empty();
        }
        live = null;
        boolean retry = reconnect && !closed && everConnected;
        if (c.askedToResume() && !c.welcomed()) {
            // The server may not take this resume (e.g. a frame limit below the manifest's size):
            // the next attempt starts afresh, so a resume never becomes a reconnect loop.
            resumeToken = null;
        }
        long welcomedFor = c.welcomed() ? nanoClock.getAsLong() - liveWelcomedAtNanos : -1;
        return Optional.of(new Ended(retry, welcomedFor));
    }

    /** Closes the client: no connection is live from now on. Empty if it was closed already. */
    synchronized Optional<Closing> close() {
        if (closed) {
            return Optional.empty();
        }
        closed = true;
        Connection c = live;
        live = null;
        return Optional.of(new Closing(c, firstWelcome));
    }

    /** The live connection's outbox once it is welcomed, or null. */
    synchronized Outbox outbox() {
        return live != null && live.welcomed() ? live.outbox() : null;
    }

    /** The live connection's welcome once it is welcomed. */
    synchronized Optional<Welcome> welcome() {
        return live != null && live.welcomed() ? Optional.of(lastWelcome) : Optional.empty();
    }

    /**
     * Takes {@code scope} as the request scope and sends it at once if a connection is welcomed
     * (otherwise after the next welcome). Any thread.
     *
     * @throws IllegalStateException if the live connection's welcome does not offer {@code scope}
     */
    void sendScope(JsonNode scope) {
        Outbox out = takeScope(scope);
        if (out != null) {
            out.scope(ControlCodec.encode(new ControlMessage.Scope(scope)));
        }
    }

    /**
     * Sends {@code message} on the welcomed live connection, unless it is the state the server
     * rejected last. Any thread.
     */
    @Override
    public void sendState(PredictionState message) {
        Outbox out = stateOutbox(message);
        if (out != null) {
            out.state(ControlCodec.encode(message));
        }
    }

    /** Sends {@code report} on the welcomed live connection, if any. Any thread. */
    @Override
    public void sendRate(RateReport report) {
        Outbox out = outbox();
        if (out != null) {
            out.rate(ControlCodec.encode(report));
        }
    }

    /**
     * The outbox to report request {@code requestId} on, as {@link #outbox()}.
     *
     * @throws IllegalArgumentException if the last welcome's request count is not above {@code requestId}
     */
    synchronized Outbox requestOutbox(int requestId) {
        if (lastWelcome != null && requestId >= lastWelcome.requestCount()) {
            throw new IllegalArgumentException("requestId " + requestId + " out of range [0, "
                    + lastWelcome.requestCount() + ")");
        }
        return outbox();
    }

    /** Takes {@code scope}; the outbox to send it on now, or null. */
    private synchronized Outbox takeScope(JsonNode scope) {
        Outbox out = null;
        if (live != null && liveAccepted) {
            if (!lastWelcome.supports(Protocol.FEATURE_SCOPE)) {
                throw new IllegalStateException("application " + application
                        + " does not bind requests per session: its welcome does not offer \"scope\"");
            }
            out = live.outbox();
        }
        this.scope = scope;
        return out;
    }

    /** Notes {@code state} as the live connection's last state; the outbox to send it on, or null. */
    private synchronized Outbox stateOutbox(PredictionState state) {
        if (live == null || !live.welcomed()) {
            return null;
        }
        if (state.state().equals(rejectedState)) {
            LOG.debug("not re-sending the state the server rejected: {}", rejectedState);
            return null;
        }
        liveLastState = state.state();
        return live.outbox();
    }
}
