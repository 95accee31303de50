package dev.khameleon.simulator;

import java.util.ArrayDeque;

/**
 * The bytes a server has written that have not yet crossed the bottleneck link, as the server's
 * channel sees them: writable while they stay under the path's own buffer plus Netty's high water
 * mark, writable again once they fall under the path's buffer plus the low water mark. This is what
 * bounds how far the server's sender runs ahead of the link, and how stale a pushed block can be
 * when it lands.
 *
 * <p>Single-threaded, on the simulator's event loop; times in virtual nanoseconds.
 */
final class OutboundWindow {
    private final long highBytes;
    private final long lowBytes;
    /** (done time, bytes) of each frame still on its way over the link, in the order written. */
    private final ArrayDeque<long[]> inFlight = new ArrayDeque<>();
    private long queuedBytes;
    private boolean writable = true;

    /**
     * @param pathBytes bytes the path holds before the channel's own buffer fills (socket buffers,
     *                  the bottleneck's queue), {@code >= 0}
     * @param lowBytes  the channel's low water mark
     * @param highBytes the channel's high water mark, {@code >= lowBytes}
     */
    OutboundWindow(long pathBytes, long lowBytes, long highBytes) {
        if (pathBytes < 0 || lowBytes < 0 || highBytes < lowBytes) {
            throw new IllegalArgumentException("need pathBytes >= 0 and 0 <= lowBytes <= highBytes, were " + pathBytes
                    + ", " + lowBytes + ", " + highBytes);
        }
        this.highBytes = pathBytes + highBytes;
        this.lowBytes = pathBytes + lowBytes;
    }

    /** A frame of {@code bytes} written at {@code nowNanos} will have crossed the link at {@code doneNanos}. */
    void written(long nowNanos, long doneNanos, long bytes) {
        drain(nowNanos);
        inFlight.addLast(new long[] {doneNanos, bytes});
        queuedBytes += bytes;
        if (queuedBytes > highBytes) {
            writable = false;
        }
    }

    /** Whether the channel is writable at {@code nowNanos}. */
    boolean isWritable(long nowNanos) {
        drain(nowNanos);
        return writable;
    }

    /**
     * When the channel becomes writable again if nothing more is written, or {@code nowNanos} if it
     * already is.
     */
    long writableAtNanos(long nowNanos) {
        drain(nowNanos);
        if (writable) {
            return nowNanos;
        }
        long left = queuedBytes;
        for (long[] f : inFlight) {
            left -= f[1];
            if (left < lowBytes) {
                return f[0];
            }
        }
        return nowNanos;
    }

    /** Bytes written and not yet across the link at the last call. */
    long queuedBytes() {
        return queuedBytes;
    }

    private void drain(long nowNanos) {
        while (!inFlight.isEmpty() && inFlight.peekFirst()[0] <= nowNanos) {
            queuedBytes -= inFlight.pollFirst()[1];
        }
        if (!writable && queuedBytes < lowBytes) {
            writable = true;
        }
    }
}
