package dev.khameleon.examples.crossfilter;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A fake backend whose slice queries wait until {@link #release()}, recording each query that
 * reached it (its {@link QueryCancel} started) in {@link #calls}. A stoppable one also ends a
 * waiting query when its switch is cancelled, recording it in {@link #stopped}; an unstoppable one
 * runs every query until the release, as a backend that cannot cancel would. Histograms answer at
 * once.
 */
final class LatchedBackend implements TileBackend {
    /** One slice query. */
    record Call(TileKey key, View passive) {
    }

    /** The queries that reached the backend, in the order they started. */
    final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    /** The queries stopped by their cancel. */
    final List<Call> stopped = Collections.synchronizedList(new ArrayList<>());
    /** A permit per query started. */
    final Semaphore started = new Semaphore(0);
    /** A permit per query stopped by its cancel. */
    final Semaphore stops = new Semaphore(0);
    private final boolean stoppable;
    /** The wake-ups of the queries waiting; guarded by {@code this}. */
    private final List<CountDownLatch> waiting = new ArrayList<>();
    private boolean released;

    LatchedBackend(boolean stoppable) {
        this.stoppable = stoppable;
    }

    /** Lets every query, waiting or to come, finish. */
    synchronized void release() {
        released = true;
        waiting.forEach(CountDownLatch::countDown);
    }

    /** Waits for {@code n} more queries to start; false if they did not within 30 s. */
    boolean awaitStarted(int n) throws InterruptedException {
        return started.tryAcquire(n, 30, TimeUnit.SECONDS);
    }

    /** Waits for {@code n} more queries to be stopped by their cancel; false if not within 30 s. */
    boolean awaitStopped(int n) throws InterruptedException {
        return stops.tryAcquire(n, 30, TimeUnit.SECONDS);
    }

    /** The calls for {@code key}'s tile. */
    List<Call> callsOf(TileKey key) {
        synchronized (calls) {
            return calls.stream().filter(c -> c.key().equals(key)).toList();
        }
    }

    @Override
    public Slice slice(TileKey key, View passive) {
        throw new AssertionError("the tile cache calls the cancellable form");
    }

    @Override
    public Slice slice(TileKey key, View passive, QueryCancel cancel) throws SQLException {
        CountDownLatch wake = new CountDownLatch(1);
        synchronized (this) {
            if (released) {
                wake.countDown();
            } else {
                waiting.add(wake);
            }
        }
        Call call = new Call(key, passive);
        if (!cancel.start(stoppable ? wake::countDown : () -> { })) {
            throw QueryCancel.cancelled(call.toString(), null);
        }
        calls.add(call);
        started.release();
        try {
            if (!wake.await(60, TimeUnit.SECONDS)) {
                throw new SQLException("test gate never opened");
            }
        } catch (InterruptedException e) {
            throw new SQLException(e);
        } finally {
            cancel.end();
        }
        if (cancel.isCancelled()) {
            if (stoppable) {
                stopped.add(call);
                stops.release();
            }
            throw QueryCancel.cancelled(call.toString(), null);
        }
        return Slice.fromPixelCounts(passive, new long[View.PIXELS][passive.bins()], new long[passive.bins()]);
    }

    @Override
    public int[] histogram(View passive, Filters filters) {
        return new int[passive.bins()];
    }

    @Override
    public long count(Filters filters) {
        return 0;
    }

    @Override
    public String name() {
        return "latched";
    }

    @Override
    public Views views() {
        return Views.flights();
    }

    @Override
    public long rows() {
        return 0;
    }

    @Override
    public int connections() {
        return 100;
    }

    @Override
    public int defaultConcurrency() {
        return 5;
    }

    @Override
    public void close() {
    }
}
