package dev.khameleon.store;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The QUEUED extents: reads a sender waits for ("demand"), served in elevator order (ascending disk
 * position from the last read, wrapping around) unless the oldest has waited longer than the
 * deadline (then oldest first, so no read starves behind a busy region of the disk), and prefetch
 * hints, served soonest-due first. Bounded: at most {@code maxPending} queued extents in all.
 *
 * <p>Not thread-safe: guarded by the owning {@link ReadAheadReader}'s lock.
 */
final class ReadQueue {
    private final TreeMap<Long, Extent> demand = new TreeMap<>();
    /** Demand reads in arrival order; entries already taken are skipped lazily. */
    private final ArrayDeque<Extent> arrivals = new ArrayDeque<>();
    private final long deadlineNanos;
    private final TreeSet<Extent> hints = new TreeSet<>(Extent.BY_DUE);
    private final int maxPending;
    private int queued;
    private long head;

    /**
     * @param maxPending the most queued extents
     * @param deadlineNanos how long a demand read may wait before it goes ahead of the elevator order
     */
    ReadQueue(int maxPending, long deadlineNanos) {
        this.maxPending = maxPending;
        this.deadlineNanos = deadlineNanos;
    }

    /** Whether another extent may be queued. */
    boolean hasRoom() {
        return queued < maxPending;
    }

    /** Extents queued now. */
    int size() {
        return queued;
    }

    /** Counts a new QUEUED extent (it is then added with {@link #demand} or {@link #hint}). */
    void created() {
        queued++;
    }

    /** Queues {@code e} for a waiting sender since {@code now}, taking it out of the hint queue if it was there. */
    void demand(Extent e, long now) {
        if (e.inHintQueue) {
            hints.remove(e);
            e.inHintQueue = false;
        }
        e.demanded = true;
        e.demandedNanos = now;
        demand.put(e.position, e);
        arrivals.addLast(e);
    }

    /** Queues {@code e} as a prefetch. */
    void hint(Extent e) {
        e.demanded = false;
        hints.add(e);
        e.inHintQueue = true;
    }

    /** Moves a queued hint to an earlier due time. */
    void advance(Extent e, long due) {
        if (e.inHintQueue) {
            hints.remove(e);
            e.due = due;
            hints.add(e);
        } else {
            e.due = due;
        }
    }

    boolean hasDemand() {
        return !demand.isEmpty();
    }

    boolean hasHints() {
        return !hints.isEmpty();
    }

    /** The next demand read (see the class comment), without removing it. */
    Extent peekDemand(long now) {
        Extent oldest;
        while ((oldest = arrivals.peekFirst()) != null && demand.get(oldest.position) != oldest) {
            arrivals.pollFirst();
        }
        if (oldest != null && now - oldest.demandedNanos > deadlineNanos) {
            return oldest;
        }
        Map.Entry<Long, Extent> next = demand.ceilingEntry(head);
        return (next != null ? next : demand.firstEntry()).getValue();
    }

    /** The soonest-due hint, without removing it. */
    Extent peekHint() {
        return hints.first();
    }

    /** Removes {@code e} from whichever queue holds it and counts it as no longer queued. */
    void take(Extent e, long endPosition) {
        remove(e);
        head = endPosition;
    }

    /** Removes a queued extent that will not be read. */
    void remove(Extent e) {
        if (e.inHintQueue) {
            hints.remove(e);
            e.inHintQueue = false;
        } else {
            demand.remove(e.position);
        }
        queued--;
    }

    /** Empties both queues (close). */
    void clear() {
        demand.clear();
        arrivals.clear();
        hints.clear();
        queued = 0;
    }
}
