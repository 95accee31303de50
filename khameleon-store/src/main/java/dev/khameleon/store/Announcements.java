package dev.khameleon.store;

import dev.khameleon.core.ScheduleChunk;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * What the schedule announced, kept on the extents of a {@link ReadAheadReader}: turns a chunk
 * into queued hint reads, keeps each extent's due time and count of announced slots current as
 * chunks arrive and fetches consume them, and learns the {@link SlotPace} from first fetches.
 *
 * <p>Not thread-safe: every method but {@link #byResponse} is called with the owning reader's
 * lock held, and none blocks.
 */
final class Announcements {
    /**
     * Announced data due longer ago than this plus the observed lead (announcement to first fetch)
     * is no longer preferred to other data: its slots were re-planned or its session left.
     */
    static final long STALE_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** The slot pace assumed until fetches have shown the real one (a 16 KiB block at 16 MB/s). */
    static final long INITIAL_SLOT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Creates and indexes a QUEUED extent of {@code request} from {@code block}, ending before {@code limit} at the latest. */
    @FunctionalInterface
    interface ExtentFactory {
        Extent create(int request, int block, int limit);
    }

    private final ExtentCache cache;
    private final ReadQueue queue;
    private final BlockReader.Counters counters;
    private final ExtentFactory newExtent;
    private final LongSupplier nanoTime;
    private final SlotPace pace = new SlotPace(INITIAL_SLOT_NANOS);
    private long nextChunk;

    Announcements(ExtentCache cache, ReadQueue queue, BlockReader.Counters counters, ExtentFactory newExtent,
            LongSupplier nanoTime) {
        this.cache = cache;
        this.queue = queue;
        this.counters = counters;
        this.newExtent = newExtent;
        this.nanoTime = nanoTime;
    }

    /**
     * The slots of {@code chunk} that name a block of {@code index}, per response in the order
     * responses first appear; each response's list holds {@code block << 32 | offset in the chunk},
     * ascending (so by block). Slots naming no block are left out. Needs no lock.
     */
    static Map<Integer, List<Long>> byResponse(ScheduleChunk chunk, StoreIndex index) {
        LinkedHashMap<Integer, List<Long>> wanted = new LinkedHashMap<>();
        int n = index.size();
        for (int k = 0; k < chunk.size(); k++) {
            int r = chunk.requestId(k);
            int b = chunk.blockIndex(k);
            if (r >= 0 && r < n && b >= 0 && b < index.entry(r).count()) {
                wanted.computeIfAbsent(r, x -> new ArrayList<>()).add(((long) b << 32) | k);
            }
        }
        for (List<Long> slots : wanted.values()) {
            slots.sort(null);
        }
        return wanted;
    }

    /**
     * Announces one chunk, already grouped by {@link #byResponse}, announced at {@code now}: each
     * slot goes to the extent that covers its block, and a block no extent covers starts a hint
     * read up to its response's last wanted block. When the queue is full, the rest of that
     * response's slots are dropped and counted in {@code hintsDropped}.
     *
     * @return whether a hint read was queued
     */
    boolean announce(Map<Integer, List<Long>> wanted, long now) {
        long slot = pace.slotNanos();
        long lead = pace.leadNanos();
        boolean added = false;
        long announcer = nextChunk++;
        for (Map.Entry<Integer, List<Long>> m : wanted.entrySet()) {
            int r = m.getKey();
            List<Long> slots = m.getValue();
            int last = (int) (slots.get(slots.size() - 1) >>> 32);
            Extent current = null;
            for (long s : slots) {
                int b = (int) (s >>> 32);
                int k = (int) s;
                if (current == null || !current.covers(b)) {
                    current = cache.find(r, b);
                    if (current == null) {
                        if (!queue.hasRoom()) {
                            counters.hintsDropped.increment();
                            break;
                        }
                        // One read from here to the response's last wanted block, as far as read-ahead allows.
                        current = newExtent.create(r, b, last + 1);
                        queue.hint(current);
                        added = true;
                    }
                }
                announceSlot(current, announcer, now, k, now + lead + k * slot);
            }
        }
        return added;
    }

    private void announceSlot(Extent e, long announcer, long now, int offset, long due) {
        // Its place on the eviction lists depends on what is announced, so it leaves them meanwhile.
        boolean listed = cache.unlist(e);
        e.hinted++;
        if (e.lastAnnouncer != announcer) {
            e.lastAnnouncer = announcer;
            e.announcers++;
        }
        if (due < e.due) {
            queue.advance(e, due);
            e.announcedNanos = now;
            e.announcedOffset = offset;
            e.paceSampled = false;
        }
        if (listed) {
            cache.list(e);
        }
    }

    /**
     * On the first fetch of an extent that one chunk announced, teaches the slot pace when it was
     * fetched (with several announcers, the fetch may belong to another session's chunk).
     */
    void fetched(Extent e) {
        if (e.hinted > 0 && e.announcers == 1 && !e.paceSampled) {
            e.paceSampled = true;
            pace.sample(e.announcedOffset, nanoTime.getAsLong() - e.announcedNanos);
        }
    }

    /**
     * Records that {@code slots} announced slots of {@code e} were served.
     *
     * @return whether that was the last announced slot of {@code e}, so its memory no longer
     *     holds announced data
     */
    boolean consume(Extent e, int slots) {
        if (e.hinted <= 0) {
            return false;
        }
        boolean listed = cache.unlist(e);
        e.hinted = Math.max(0, e.hinted - slots);
        if (e.hinted == 0) {
            e.due = Long.MAX_VALUE;
        }
        if (listed) {
            cache.list(e);
        }
        return e.hinted == 0;
    }

    /** How long past its due time announced data is still preferred to other data. */
    long staleNanos() {
        return STALE_NANOS + pace.leadNanos();
    }
}
