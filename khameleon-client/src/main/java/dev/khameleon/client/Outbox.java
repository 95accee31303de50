package dev.khameleon.client;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.http.WebSocket;
import java.util.ArrayDeque;

/**
 * The send side of one WebSocket: {@link WebSocket} allows one outstanding text send at a time,
 * so messages wait here, boundedly. Control messages (hello, request events, bye) queue in order
 * up to {@link #MAX_QUEUED} (the oldest request event is dropped beyond that); the request scope,
 * the prediction state and the rate report each keep only their newest pending value, since an
 * older one is worthless once a newer exists. Thread-safe.
 */
final class Outbox {
    static final int MAX_QUEUED = 256;
    private static final Logger LOG = LoggerFactory.getLogger(Outbox.class);

    private final WebSocket webSocket;
    private final ArrayDeque<String> control = new ArrayDeque<>();
    private String pendingScope;
    private String pendingState;
    private String pendingRate;
    private boolean inFlight;
    private boolean closed;
    private Runnable afterDrain;
    private long dropped;

    Outbox(WebSocket webSocket) {
        this.webSocket = webSocket;
    }

    void control(String json) {
        synchronized (this) {
            if (closed) {
                return;
            }
            if (control.size() >= MAX_QUEUED) {
                control.pollFirst();
                dropped++;
            }
            control.addLast(json);
        }
        pump();
    }

    void scope(String json) {
        synchronized (this) {
            if (closed) {
                return;
            }
            pendingScope = json;
        }
        pump();
    }

    void state(String json) {
        synchronized (this) {
            if (closed) {
                return;
            }
            pendingState = json;
        }
        pump();
    }

    void rate(String json) {
        synchronized (this) {
            if (closed) {
                return;
            }
            pendingRate = json;
        }
        pump();
    }

    /** Sends {@code last} after everything queued, then runs {@code then}; accepts nothing more. */
    void finish(String last, Runnable then) {
        synchronized (this) {
            if (closed) {
                then.run();
                return;
            }
            control.addLast(last);
            pendingState = null;
            pendingRate = null;
            closed = true;
            afterDrain = then;
        }
        pump();
    }

    /** Drops everything: the connection is gone. */
    synchronized void abandon() {
        closed = true;
        control.clear();
        pendingScope = null;
        pendingState = null;
        pendingRate = null;
        afterDrain = null;
    }

    synchronized long dropped() {
        return dropped;
    }

    private void pump() {
        String next;
        Runnable done = null;
        synchronized (this) {
            if (inFlight) {
                return;
            }
            next = control.pollFirst();
            if (next == null && pendingScope != null) {
                next = pendingScope;
                pendingScope = null;
            }
            if (next == null && pendingState != null) {
                next = pendingState;
                pendingState = null;
            }
            if (next == null && pendingRate != null) {
                next = pendingRate;
                pendingRate = null;
            }
            if (next == null) {
                done = afterDrain;
                afterDrain = null;
            } else {
                inFlight = true;
            }
        }
        if (next == null) {
            if (done != null) {
                done.run();
            }
            return;
        }
        try {
            webSocket.sendText(next, true).whenComplete((ws, error) -> {
                if (error != null) {
                    LOG.debug("send failed: {}", error.toString());
                    abandon();
                }
                synchronized (this) {
                    inFlight = false;
                }
                pump();
            });
        } catch (RuntimeException e) {
            LOG.debug("send refused: {}", e.toString());
            abandon();
            synchronized (this) {
                inFlight = false;
            }
        }
    }
}
