package dev.khameleon.simulator.live;

import java.util.ArrayDeque;

/**
 * A fixed one-way delay as a Netty-free FIFO on an injected clock: an item added at {@code t}
 * is due at {@code t + delay}, and items come out in the order they went in. Bounded by what
 * feeds it (a bottleneck's rate times the delay, or the few bytes of the upstream).
 *
 * <p>Not thread-safe: one thread (the relay's event loop) calls it, with non-decreasing times.
 *
 * @param <T> the item type
 */
final class DelayLine<T> {
    private record Entry<T>(long dueNanos, T item) {
    }

    private final long delayNanos;
    private final ArrayDeque<Entry<T>> queue = new ArrayDeque<>();

    DelayLine(long delayNanos) {
        if (delayNanos < 0) {
            throw new IllegalArgumentException("delay must be >= 0 ns, was " + delayNanos);
        }
        this.delayNanos = delayNanos;
    }

    /** Adds {@code item}, sent at {@code sentNanos}; it is due {@code delay} later. */
    void add(T item, long sentNanos) {
        queue.add(new Entry<>(sentNanos + delayNanos, item));
    }

    /** The oldest item if it is due at {@code nowNanos}, removed; otherwise null. */
    T pollDue(long nowNanos) {
        Entry<T> head = queue.peek();
        if (head == null || head.dueNanos() > nowNanos) {
            return null;
        }
        queue.poll();
        return head.item();
    }

    /** When the oldest item is due, or {@link Long#MAX_VALUE} if there is none. */
    long nextDueNanos() {
        Entry<T> head = queue.peek();
        return head == null ? Long.MAX_VALUE : head.dueNanos();
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Removes every item, oldest first, passing each to {@code sink} (to release buffers). */
    void clear(java.util.function.Consumer<T> sink) {
        for (Entry<T> e; (e = queue.poll()) != null; ) {
            sink.accept(e.item());
        }
    }
}
