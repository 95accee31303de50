package dev.khameleon.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * The eviction policy of the read-ahead pool: which extents exist (by response), and which READY
 * extent gives up its memory when a read needs some.
 *
 * <p>READY extents that nobody is copying from are listed in one of two orders, so a victim is
 * found in constant or logarithmic time instead of by scanning the pool:
 * <ul>
 * <li><b>cold</b> (no announced slot still expects them), least recently used first: always evicted
 *     first;
 * <li><b>announced</b> (blocks the schedule said will be fetched and that were not fetched yet), by
 *     the time they are due: a read for a waiting sender may evict the one due last; a prefetch only
 *     one due later than its own data (so the pool keeps the announced data needed soonest, Belady's
 *     rule with the schedule as the oracle); one due so long ago that it is {@linkplain #staleNanos
 *     stale} (its slots were re-planned, its session left) counts as cold.
 * </ul>
 *
 * <p>Not thread-safe: guarded by the owning {@link ReadAheadReader}'s lock.
 */
final class ExtentCache {
    private final BuddyPool pool;
    private final Map<Integer, List<Extent>> byRequest = new HashMap<>();
    private final LinkedHashSet<Extent> cold = new LinkedHashSet<>();
    private final TreeSet<Extent> announced = new TreeSet<>(Extent.BY_DUE);
    private final LongSupplier staleNanos;
    private final Predicate<Extent> requeue;
    private long evictedCold;
    private long evictedAnnounced;

    /**
     * @param pool the memory extents are read into
     * @param staleNanos how long past its due time announced data is kept in preference to other data
     * @param requeue offered every announced extent evicted before it was due, its memory already
     *     freed: returns true if it queued the extent to be read again (it then stays indexed, so a
     *     fetch re-reads its whole announced range rather than one block), false to forget it
     */
    ExtentCache(BuddyPool pool, LongSupplier staleNanos, Predicate<Extent> requeue) {
        this.pool = pool;
        this.staleNanos = staleNanos;
        this.requeue = requeue;
    }

    /** The extent of {@code request} covering {@code block}, in any state, or null. */
    Extent find(int request, int block) {
        List<Extent> list = byRequest.get(request);
        if (list != null) {
            for (Extent e : list) {
                if (e.covers(block)) {
                    return e;
                }
            }
        }
        return null;
    }

    /**
     * The end (exclusive) of a new extent of {@code request} starting at {@code block} and wanting
     * to reach {@code to}: shortened so that it overlaps no existing extent.
     */
    int clip(int request, int block, int to) {
        List<Extent> list = byRequest.get(request);
        if (list != null) {
            for (Extent other : list) {
                if (other.from > block && other.from < to) {
                    to = other.from;
                }
            }
        }
        return Math.max(to, block + 1);
    }

    /** Indexes a new extent. */
    void add(Extent e) {
        byRequest.computeIfAbsent(e.request, x -> new ArrayList<>(2)).add(e);
    }

    /** Removes {@code e} from the index and the eviction orders; its memory is the caller's. */
    void remove(Extent e) {
        unlist(e);
        List<Extent> list = byRequest.get(e.request);
        if (list != null) {
            list.remove(e);
            if (list.isEmpty()) {
                byRequest.remove(e.request);
            }
        }
    }

    /**
     * A loaded extent becomes READY; unless fetches still copy from it (they pinned it while it
     * was sealed but not yet READY), it is listed for eviction. Returns whether it was listed.
     */
    boolean loaded(Extent e) {
        e.state = Extent.State.READY;
        if (e.pins == 0 && e.memory != null) {
            list(e);
            return true;
        }
        return false;
    }

    /**
     * Pins a READY extent (or a sealed LOADING one, which is not listed) so its memory cannot be
     * reused while blocks are copied out.
     */
    void pin(Extent e) {
        if (e.pins++ == 0) {
            unlist(e);
        }
    }

    /** Releases a pin; returns whether the extent became evictable. */
    boolean unpin(Extent e) {
        if (--e.pins == 0 && e.state == Extent.State.READY && e.memory != null) {
            list(e);
            return true;
        }
        return false;
    }

    /** Re-files {@code e} after its announced-slot count changed. */
    void relist(Extent e) {
        if (unlist(e)) {
            list(e);
        }
    }

    /**
     * Removes {@code e} from its eviction order, so its due time may be changed; returns whether
     * it was listed (then {@link #list} it again).
     */
    boolean unlist(Extent e) {
        switch (e.listed) {
            case COLD -> cold.remove(e);
            case ANNOUNCED -> announced.remove(e);
            default -> {
                return false;
            }
        }
        e.listed = Extent.Listed.NONE;
        return true;
    }

    /** Lists an unpinned READY extent for eviction: announced by due time if slots still expect it, else cold. */
    void list(Extent e) {
        if (e.hinted > 0) {
            announced.add(e);
            e.listed = Extent.Listed.ANNOUNCED;
        } else {
            cold.add(e);
            e.listed = Extent.Listed.COLD;
        }
    }

    /**
     * Memory of at least {@code bytes} for a read, made by evicting READY extents as described in
     * the class comment, or null if the policy allows no (further) eviction now.
     *
     * @param demand whether a sender waits for the read
     * @param due when the read's data is due (a prefetch evicts only announced data due later)
     * @param now the current time on the due times' scale
     */
    BuddyPool.Allocation acquire(int bytes, boolean demand, long due, long now) {
        return acquire(bytes, demand, due, now, false);
    }

    /**
     * Memory of at least {@code bytes} taken only from free memory, cold extents and stale
     * announced ones, or null: never from announced data a sender will still fetch.
     *
     * @param now the current time on the due times' scale
     */
    BuddyPool.Allocation acquireUnannounced(int bytes, long now) {
        return acquire(bytes, false, Long.MIN_VALUE, now, true);
    }

    /**
     * Whether {@link #acquireUnannounced} could find {@code bytes} now: free memory or data that
     * no announced slot expects (a cheap estimate; the allocation may still fail to fragmentation).
     */
    boolean hasUnannounced(int bytes, long now) {
        return !cold.isEmpty() || pool.usedBytes() + bytes <= pool.capacityBytes()
                || !announced.isEmpty() && now - announced.first().due > staleNanos.getAsLong();
    }

    private BuddyPool.Allocation acquire(int bytes, boolean demand, long due, long now, boolean coldOnly) {
        long stale = staleNanos.getAsLong();
        while (true) {
            BuddyPool.Allocation a = pool.allocate(bytes);
            if (a != null) {
                return a;
            }
            Extent victim = null;
            if (!cold.isEmpty()) {
                victim = cold.iterator().next();
            } else if (!announced.isEmpty()) {
                Extent soonest = announced.first();
                Extent latest = announced.last();
                if (now - soonest.due > stale) {
                    victim = soonest;
                } else if (!coldOnly && (demand || latest.due > due)) {
                    victim = latest;
                }
            }
            if (victim == null) {
                return null;
            }
            boolean stillWanted = victim.listed == Extent.Listed.ANNOUNCED && now - victim.due <= stale;
            if (stillWanted) {
                evictedAnnounced++;
            } else {
                evictedCold++;
            }
            unlist(victim);
            pool.free(victim.memory);
            victim.memory = null;
            if (!stillWanted || !requeue.test(victim)) {
                remove(victim);
            }
        }
    }

    /** Frees the memory of an extent that was never made READY (a failed or abandoned read). */
    void release(Extent e) {
        if (e.memory != null) {
            pool.free(e.memory);
            e.memory = null;
        }
    }

    /** Every indexed extent that is not READY (for close). */
    List<Extent> notReady() {
        List<Extent> out = new ArrayList<>();
        for (List<Extent> list : byRequest.values()) {
            for (Extent e : list) {
                if (e.state != Extent.State.READY) {
                    out.add(e);
                }
            }
        }
        return out;
    }

    /** Forgets every extent (after close, once no I/O thread runs). */
    void clear() {
        cold.clear();
        announced.clear();
        byRequest.clear();
    }

    /** Extents evicted while no announced slot expected them. */
    long evictedCold() {
        return evictedCold;
    }

    /** Extents evicted although announced slots still expected them. */
    long evictedAnnounced() {
        return evictedAnnounced;
    }

    BuddyPool pool() {
        return pool;
    }
}
