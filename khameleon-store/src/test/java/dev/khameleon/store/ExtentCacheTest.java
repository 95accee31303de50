package dev.khameleon.store;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which READY extent gives up its memory: the eviction policy of the read-ahead pool. */
class ExtentCacheTest {
    private static final int PAGE = 4096;
    private static final long STALE = 1_000;

    private final List<Extent> requeued = new ArrayList<>();
    /** A pool of four pages; every extent here holds one. */
    private final ExtentCache cache = new ExtentCache(new BuddyPool(4 * PAGE, PAGE), () -> STALE, e -> {
        requeued.add(e);
        return true;
    });
    private long ids;

    /** A READY, unpinned extent of request {@code r} holding one page; {@code due} MAX = not announced. */
    private Extent ready(int r, long due) {
        Extent e = new Extent(ids++, r, 0, 1, 0);
        cache.add(e);
        e.memory = cache.acquire(PAGE, true, 0, 0);
        assertNotNull(e.memory, "the test pool has room for extent " + r);
        if (due != Long.MAX_VALUE) {
            e.hinted = 1;
            e.due = due;
        }
        cache.loaded(e);
        return e;
    }

    @Test
    void acquire_evictsColdDataLeastRecentlyUsedFirst() {
        Extent a = ready(0, Long.MAX_VALUE);
        Extent b = ready(1, Long.MAX_VALUE);
        ready(2, 500);
        ready(3, 600);
        cache.pin(a);
        cache.unpin(a); // a used again: b is now the least recently used
        assertNotNull(cache.acquire(PAGE, false, 100, 0));
        assertNull(b.memory, "the least recently used cold extent went first");
        assertNull(cache.find(1, 0), "and was forgotten");
        assertNotNull(a.memory);
        assertTrue(requeued.isEmpty(), "cold data is not re-read");
    }

    @Test
    void prefetch_evictsOnlyAnnouncedDataDueLaterThanItsOwn() {
        Extent soon = ready(0, 100);
        Extent late = ready(1, 900);
        ready(2, 300);
        ready(3, 400);
        assertNull(cache.acquire(PAGE, false, 950, 0), "nothing is due later than 950: the prefetch waits");
        assertNotNull(cache.acquire(PAGE, false, 200, 0));
        assertNull(late.memory, "the announced extent due last made room");
        assertNotNull(soon.memory);
        assertEquals(List.of(late), requeued, "evicted before it was fetched: queued to be read again");
        assertEquals(1, cache.evictedAnnounced());
    }

    @Test
    void demand_mayEvictAnnouncedDataButTheOneDueLastFirst() {
        ready(0, 100);
        Extent last = ready(1, 900);
        ready(2, 300);
        ready(3, 400);
        assertNotNull(cache.acquire(PAGE, true, Long.MAX_VALUE, 0));
        assertNull(last.memory);
    }

    @Test
    void staleAnnouncedData_isEvictedLikeColdData_andNotReRead() {
        Extent stale = ready(0, 100);
        ready(1, 5_000);
        ready(2, 5_100);
        ready(3, 5_200);
        long now = 100 + STALE + 1;
        assertNotNull(cache.acquire(PAGE, false, 5_000, now), "a prefetch may evict data whose slots passed long ago");
        assertNull(stale.memory);
        assertNull(cache.find(0, 0), "forgotten");
        assertTrue(requeued.isEmpty());
        assertEquals(1, cache.evictedCold());
    }

    @Test
    void pinnedData_isNeverEvicted() {
        List<Extent> all = new ArrayList<>();
        for (int r = 0; r < 4; r++) {
            all.add(ready(r, Long.MAX_VALUE));
            cache.pin(all.get(r));
        }
        assertNull(cache.acquire(PAGE, true, 0, 0), "every page is being copied from");
        for (Extent e : all) {
            assertNotNull(e.memory);
        }
        assertTrue(cache.unpin(all.get(2)), "unpinned: evictable again");
        assertNotNull(cache.acquire(PAGE, true, 0, 0));
        assertNull(all.get(2).memory);
    }

    @Test
    void fetchedAnnouncedData_becomesCold() {
        Extent a = ready(0, 100);
        ready(1, 200);
        ready(2, 300);
        ready(3, 400);
        assertTrue(cache.unlist(a));
        a.hinted = 0;
        cache.list(a);
        assertNotNull(cache.acquire(PAGE, false, 50, 0), "even a prefetch due before everything may take cold memory");
        assertNull(a.memory);
        assertFalse(requeued.contains(a));
    }
}
