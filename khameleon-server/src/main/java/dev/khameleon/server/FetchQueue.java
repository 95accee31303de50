package dev.khameleon.server;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The order in which the server's sessions' fetches reach their block sources. A fetch of a request
 * a client asked for and did not find in its cache (a <em>demand</em> fetch) goes ahead of every
 * speculative one; speculative fetches take turns by session, each session's in the order of its
 * plan; and a queued fetch its session no longer wants leaves the queue without reaching the
 * source.
 *
 * <p>A fetch starts only when two gates allow it: its application's backend limit (a
 * {@link BackendTracker}: at most {@code Cb} distinct requests being fetched, a further block of a
 * request already being fetched always allowed) and a free fetch thread (at most
 * {@code fetchThreads} started fetches whose call to the source has not returned). So the fetch
 * executor's own queue never holds more than its threads can start at once: the order is decided
 * here, not first come, first served behind other sessions' speculation.
 *
 * <p><b>Threading.</b> Thread-safe. One lock guards the queues; a source is never called under it.
 */
final class FetchQueue {
    /** Where a {@link Ticket} is. */
    enum State {
        /** In a queue. */
        WAITING,
        /** Admitted by both gates and handed to the executor. */
        STARTED,
        /** Its call to the source began. */
        CALLED,
        /** Done, failed, timed out or cancelled. */
        ENDED
    }

    /** One fetch: waiting, then started, then called, then ended. */
    static final class Ticket {
        final Owner owner;
        final BackendTracker backend;
        final int limit;
        final int requestId;
        private final Executor executor;
        private final Runnable body;
        private final Runnable rejected;
        boolean demand;
        State state = State.WAITING;

        private Ticket(Owner owner, BackendTracker backend, int limit, int requestId, boolean demand,
                       Executor executor, Runnable body, Runnable rejected) {
            this.owner = owner;
            this.backend = backend;
            this.limit = limit;
            this.requestId = requestId;
            this.demand = demand;
            this.executor = executor;
            this.body = body;
            this.rejected = rejected;
        }
    }

    /** One session's place in the queue: its waiting speculative fetches, in plan order. */
    final class Owner {
        private final ArrayDeque<Ticket> waiting = new ArrayDeque<>();
        private boolean inRotation;

        /**
         * A fetch of {@code requestId} not yet queued, which runs {@code body} on {@code executor}
         * once {@link #enqueue}d and both gates allow it; {@code rejected} runs instead (on any
         * thread) if the executor refuses it. Made apart from queueing so that its caller can record
         * it before {@link #enqueue} may run it to its end (on caller-runs executors).
         */
        Ticket ticket(BackendTracker backend, int limit, int requestId, boolean demand, Executor executor,
                      Runnable body, Runnable rejected) {
            return new Ticket(this, backend, limit, requestId, demand, executor, body, rejected);
        }

        /**
         * Queues {@code t}, a ticket of this owner's from {@link #ticket}, and starts what the gates
         * allow, which may be {@code t} itself, before this returns.
         *
         * @return false, queueing nothing, if the queue is at its bound
         */
        boolean enqueue(Ticket t) {
            if (t.owner != this || t.state != State.WAITING) {
                throw new IllegalArgumentException("not a new ticket of this owner");
            }
            synchronized (FetchQueue.this) {
                if (queued >= maxQueued) {
                    return false;
                }
                queued++;
                if (t.demand) {
                    demands.add(t);
                } else {
                    waiting.add(t);
                    if (!inRotation) {
                        inRotation = true;
                        rotation.add(this);
                    }
                }
            }
            dispatch();
            return true;
        }

        /** The waiting fetches of {@code requestId} become demand fetches, ahead of every speculative one. */
        void promote(int requestId) {
            boolean moved = false;
            synchronized (FetchQueue.this) {
                for (Iterator<Ticket> it = waiting.iterator(); it.hasNext(); ) {
                    Ticket t = it.next();
                    if (t.requestId == requestId) {
                        it.remove();
                        t.demand = true;
                        demands.add(t);
                        moved = true;
                    }
                }
            }
            if (moved) {
                dispatch();
            }
        }

        /**
         * Ends {@code t}, however: a waiting fetch leaves the queue and never starts; a started one
         * stops counting against its backend limit, and is not called if its call has not begun.
         * Idempotent.
         *
         * @return whether {@code t}'s call to the source had begun (so the source may be working on it)
         */
        boolean end(Ticket t) {
            boolean started;
            boolean called;
            synchronized (FetchQueue.this) {
                if (t.state == State.ENDED) {
                    return false;
                }
                called = t.state == State.CALLED;
                started = called || t.state == State.STARTED;
                if (!started) {
                    queued--;
                    if (!(t.demand ? demands.remove(t) : waiting.remove(t))) {
                        throw new IllegalStateException("a waiting fetch was in no queue");
                    }
                }
                t.state = State.ENDED;
            }
            if (started) {
                t.backend.end(t.requestId);
                dispatch();
            }
            return called;
        }
    }

    private final int threads;
    private final int maxQueued;
    private final ArrayDeque<Ticket> demands = new ArrayDeque<>();
    private final ArrayDeque<Owner> rotation = new ArrayDeque<>();
    /** Waiting tickets. */
    private int queued;
    /** Started tickets whose call to the source has not returned. */
    private int calling;

    /**
     * @param threads   the fetch threads: at most this many calls to sources at once
     * @param maxQueued the most waiting fetches, over all sessions
     */
    FetchQueue(int threads, int maxQueued) {
        if (threads < 1 || maxQueued < 1) {
            throw new IllegalArgumentException("threads and maxQueued must be >= 1, were " + threads + ", " + maxQueued);
        }
        this.threads = threads;
        this.maxQueued = maxQueued;
    }

    /** A new session's place in the queue. */
    Owner owner() {
        return new Owner();
    }

    /** Waiting fetches, over all sessions. */
    synchronized int waiting() {
        return queued;
    }

    /** Starts every waiting fetch the gates allow, best first. */
    private void dispatch() {
        List<Ticket> start = null;
        synchronized (this) {
            while (calling < threads) {
                Ticket t = takeNext();
                if (t == null) {
                    break;
                }
                t.state = State.STARTED;
                queued--;
                calling++;
                if (start == null) {
                    start = new ArrayList<>(2);
                }
                start.add(t);
            }
        }
        if (start != null) {
            for (Ticket t : start) {
                run(t);
            }
        }
    }

    private void run(Ticket t) {
        try {
            t.executor.execute(() -> {
                try {
                    if (beginCall(t)) {
                        t.body.run();
                    }
                } finally {
                    callReturned();
                }
            });
        } catch (RejectedExecutionException e) {
            // The server is shutting down: the fetch fails, and its slot is freed.
            callReturned();
            t.owner.end(t);
            t.rejected.run();
        }
    }

    /** Whether {@code t} is still wanted, marking its call begun if so. */
    private synchronized boolean beginCall(Ticket t) {
        if (t.state != State.STARTED) {
            return false;
        }
        t.state = State.CALLED;
        return true;
    }

    private void callReturned() {
        synchronized (this) {
            calling--;
        }
        dispatch();
    }

    /**
     * The best waiting fetch its backend admits (began there), removed from its queue; null if
     * none. Demand first, in arrival order; then one fetch per session in turn. A session whose
     * next fetch its backend does not admit now keeps its turn's place and is passed over.
     */
    private Ticket takeNext() {
        for (Iterator<Ticket> it = demands.iterator(); it.hasNext(); ) {
            Ticket t = it.next();
            if (t.backend.tryBegin(t.requestId, t.limit)) {
                it.remove();
                return t;
            }
        }
        for (int i = rotation.size(); i > 0; i--) {
            Owner o = rotation.poll();
            Ticket t = o.waiting.peekFirst();
            if (t == null) {
                o.inRotation = false;
                continue;
            }
            if (t.backend.tryBegin(t.requestId, t.limit)) {
                o.waiting.pollFirst();
                if (o.waiting.isEmpty()) {
                    o.inRotation = false;
                } else {
                    rotation.add(o);
                }
                return t;
            }
            rotation.add(o);
        }
        return null;
    }
}
