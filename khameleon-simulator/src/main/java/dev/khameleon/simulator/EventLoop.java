package dev.khameleon.simulator;

import java.util.PriorityQueue;

/**
 * The simulator's virtual clock and event queue: events run in time order, ties in the order
 * they were scheduled, so a run is a deterministic function of its inputs.
 *
 * <p>Single-threaded: events are scheduled from the thread that runs the loop (from within
 * events, or before {@link #runUntil}). Time never goes backwards; scheduling in the past is an
 * error.
 */
public final class EventLoop implements Timeline {
    private record Event(long atNanos, long order, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Long.compare(atNanos, o.atNanos);
            return c != 0 ? c : Long.compare(order, o.order);
        }
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private long now;
    private long order;
    private boolean stopped;

    /** The current virtual time in nanoseconds. */
    @Override
    public long nowNanos() {
        return now;
    }

    /**
     * Runs {@code action} at virtual time {@code atNanos}.
     *
     * @throws IllegalArgumentException if {@code atNanos} is before now
     */
    @Override
    public void at(long atNanos, Runnable action) {
        if (atNanos < now) {
            throw new IllegalArgumentException("cannot schedule at " + atNanos + " ns, before now (" + now + " ns)");
        }
        queue.add(new Event(atNanos, order++, action));
    }

    /** Runs {@code action} {@code delayNanos} from now. */
    public void after(long delayNanos, Runnable action) {
        at(now + delayNanos, action);
    }

    /** Makes {@link #runUntil} return after the current event. */
    public void stop() {
        stopped = true;
    }

    /**
     * Runs events in order until the queue is empty, {@link #stop} is called, or the next event
     * is after {@code endNanos}; the clock then stands at the last event run (or at
     * {@code endNanos} if the queue still holds later events).
     */
    public void runUntil(long endNanos) {
        stopped = false;
        while (!stopped && !queue.isEmpty() && queue.peek().atNanos <= endNanos) {
            Event e = queue.poll();
            now = e.atNanos;
            e.action.run();
        }
        if (!stopped && !queue.isEmpty()) {
            now = Math.max(now, endNanos);
        }
    }

    /** The number of events waiting. */
    public int pending() {
        return queue.size();
    }
}
