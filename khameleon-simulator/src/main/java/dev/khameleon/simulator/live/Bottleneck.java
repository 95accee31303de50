package dev.khameleon.simulator.live;

import dev.khameleon.simulator.net.MahimahiTrace;

/**
 * The shaper's bottleneck as a Netty-free policy on an injected clock: a byte queue of at most
 * {@code limitBytes}, drained by a {@link DeliverySchedule}. Each delivery opportunity carries
 * the next {@value MahimahiTrace#PACKET_BYTES} bytes of the queue; an opportunity that finds the
 * queue empty is lost (as in Mahimahi and on a real link: idle capacity is not saved up), and so
 * is the rest of a packet the queue could not fill.
 *
 * <p>Not thread-safe: one thread (the relay's event loop) calls it, with non-decreasing times.
 */
final class Bottleneck {
    private final DeliverySchedule schedule;
    private final long limitBytes;
    private long queued;
    private long maxQueued;
    /** The next opportunity not yet used or lost. */
    private long cursor;
    private long lastDepartureNanos;
    private long departed;

    Bottleneck(DeliverySchedule schedule, long limitBytes) {
        if (limitBytes < MahimahiTrace.PACKET_BYTES) {
            throw new IllegalArgumentException("link queue must hold at least one packet ("
                    + MahimahiTrace.PACKET_BYTES + " bytes), was " + limitBytes);
        }
        this.schedule = schedule;
        this.limitBytes = limitBytes;
    }

    /**
     * Queues {@code bytes} that reached the bottleneck at {@code nowNanos}. Opportunities that
     * passed while the queue was empty are lost first. The caller keeps the queue within its
     * bound by asking {@link #room()} before it reads more.
     */
    void offer(long bytes, long nowNanos) {
        if (queued == 0) {
            skipTo(nowNanos);
        }
        queued += bytes;
        maxQueued = Math.max(maxQueued, queued);
    }

    /** How many more bytes the queue holds before it is full ({@code <= 0}: full). */
    long room() {
        return limitBytes - queued;
    }

    /**
     * Uses every opportunity up to {@code nowNanos}: returns the bytes that left the queue, the
     * last of them at {@link #lastDepartureNanos()}.
     */
    long drain(long nowNanos) {
        long out = 0;
        while (queued > 0 && schedule.opportunityNanos(cursor) <= nowNanos) {
            long packet = Math.min(queued, MahimahiTrace.PACKET_BYTES);
            queued -= packet;
            out += packet;
            lastDepartureNanos = schedule.opportunityNanos(cursor);
            cursor++;
        }
        departed += out;
        return out;
    }

    /** When the next queued byte leaves, or {@link Long#MAX_VALUE} if the queue is empty. */
    long nextDepartureNanos() {
        return queued == 0 ? Long.MAX_VALUE : schedule.opportunityNanos(cursor);
    }

    /** The scheduled time of the last opportunity {@link #drain} used. */
    long lastDepartureNanos() {
        return lastDepartureNanos;
    }

    long queuedBytes() {
        return queued;
    }

    /** The most bytes ever queued at once. */
    long maxQueuedBytes() {
        return maxQueued;
    }

    /** Bytes that left the queue so far. */
    long departedBytes() {
        return departed;
    }

    private void skipTo(long nowNanos) {
        cursor = Math.max(cursor, schedule.firstAtOrAfter(nowNanos));
        while (schedule.opportunityNanos(cursor) < nowNanos) {
            cursor++;
        }
    }
}
