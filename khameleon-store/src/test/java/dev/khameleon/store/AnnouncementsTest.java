package dev.khameleon.store;

import dev.khameleon.core.ScheduleChunk;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the schedule announced: slots grouped per response, due times, and their consumption. */
class AnnouncementsTest {
    private static final int PAGE = 4096;
    /** Responses of 3, 2 and 4 blocks. */
    private static final StoreIndex INDEX = new StoreIndex(1, PAGE, new StoreIndex.Entry[] {
        new StoreIndex.Entry(1, 0, 3, 0, new int[3]),
        new StoreIndex.Entry(1, 0, 2, 0, new int[2]),
        new StoreIndex.Entry(1, 0, 4, 0, new int[4]),
    });

    private final ExtentCache cache = new ExtentCache(new BuddyPool(4 * PAGE, PAGE), () -> 0, e -> false);
    private final BlockReader.Counters counters = new BlockReader.Counters();
    private long ids;
    private long clock;

    /** Announcements over {@code queue} whose new reads span at most {@code readAhead} blocks, like the reader's. */
    private Announcements announcements(ReadQueue queue, int readAhead) {
        return new Announcements(cache, queue, counters, (r, b, limit) -> {
            Extent e = new Extent(ids++, r, b, Math.min(Math.min(limit, INDEX.entry(r).count()), b + readAhead), 0);
            cache.add(e);
            queue.created();
            return e;
        }, () -> clock);
    }

    private static ScheduleChunk chunk(int[] requests, int[] blocks) {
        return ScheduleChunk.of(0, requests, blocks);
    }

    private static long slot(int block, int offset) {
        return ((long) block << 32) | offset;
    }

    @Test
    void byResponse_groupsInFirstAppearanceOrder_sortsByBlock_andSkipsSlotsNamingNoBlock() {
        ScheduleChunk c = chunk(new int[] {2, 0, 2, 5, 0, 1, 2}, new int[] {3, 1, 0, 0, 0, 2, -1});

        Map<Integer, List<Long>> wanted = Announcements.byResponse(c, INDEX);

        // Offset 3 names no response, offset 5 block 2 of a two-block response, offset 6 block -1.
        assertEquals(List.of(2, 0), List.copyOf(wanted.keySet()));
        assertEquals(List.of(slot(0, 2), slot(3, 0)), wanted.get(2));
        assertEquals(List.of(slot(0, 4), slot(1, 1)), wanted.get(0));
    }

    @Test
    void announce_queuesOneHintReadPerResponse_dueAtItsEarliestSlot() {
        ReadQueue queue = new ReadQueue(8, 0);
        Announcements hints = announcements(queue, 8);
        clock = 100;

        assertTrue(hints.announce(Announcements.byResponse(chunk(new int[] {0, 0}, new int[] {0, 1}), INDEX), 100));

        Extent e = cache.find(0, 0);
        assertSame(e, cache.find(0, 1), "one read up to the last wanted block");
        assertEquals(2, e.to);
        assertSame(e, queue.peekHint());
        assertEquals(2, e.hinted);
        assertEquals(1, e.announcers);
        // Before the pace has samples: no lead, and slot 0 is due when announced.
        assertEquals(100, e.due);
        assertEquals(0, e.announcedOffset);
    }

    @Test
    void announce_bySecondChunk_countsItOnce_andKeepsTheEarlierDueTime() {
        ReadQueue queue = new ReadQueue(8, 0);
        Announcements hints = announcements(queue, 8);
        hints.announce(Announcements.byResponse(chunk(new int[] {0}, new int[] {0}), INDEX), 100);

        // Offsets 2 and 3 at the initial pace of 1 ms a slot: due at 2_000_100 and 3_000_100, after 100.
        boolean added = hints.announce(Announcements.byResponse(chunk(new int[] {1, 1, 0, 0}, new int[] {0, 1, 0, 0}),
                INDEX), 100);

        assertTrue(added, "response 1 needed a read of its own");
        Extent e = cache.find(0, 0);
        assertEquals(3, e.hinted);
        assertEquals(2, e.announcers);
        assertEquals(100, e.due);
        assertEquals(100, cache.find(1, 1).due, "its slot at offset 0 is due at once");
    }

    @Test
    void announce_whenTheQueueIsFull_dropsTheRestOfEachResponse() {
        ReadQueue queue = new ReadQueue(1, 0);
        Announcements hints = announcements(queue, 1);

        // Block 0 takes the only place; block 2 of response 0 and block 0 of response 1 find none.
        hints.announce(Announcements.byResponse(chunk(new int[] {0, 0, 1}, new int[] {0, 2, 0}), INDEX), 0);

        assertEquals(2, counters.hintsDropped.sum());
        assertEquals(1, cache.find(0, 0).hinted);
        assertNull(cache.find(0, 2));
        assertNull(cache.find(1, 0));
    }

    @Test
    void consume_reportsTheLastAnnouncedSlot_andForgetsItsDueTime() {
        Announcements hints = announcements(new ReadQueue(8, 0), 8);
        hints.announce(Announcements.byResponse(chunk(new int[] {2, 2}, new int[] {0, 1}), INDEX), 50);
        Extent e = cache.find(2, 0);

        assertFalse(hints.consume(e, 1));
        assertEquals(50, e.due);
        assertTrue(hints.consume(e, 5), "more slots than announced still leave none");
        assertEquals(0, e.hinted);
        assertEquals(Long.MAX_VALUE, e.due);
        assertFalse(hints.consume(e, 1), "nothing announced is left to consume");
    }

    @Test
    void fetched_samplesThePaceOnlyForExtentsOneChunkAnnounced() {
        Announcements hints = announcements(new ReadQueue(8, 0), 1);
        hints.announce(Announcements.byResponse(chunk(new int[] {0, 1}, new int[] {0, 0}), INDEX), 0);
        hints.announce(Announcements.byResponse(chunk(new int[] {1}, new int[] {0}), INDEX), 0);
        Extent once = cache.find(0, 0);
        Extent twice = cache.find(1, 0);

        hints.fetched(once);
        hints.fetched(twice);

        assertTrue(once.paceSampled);
        assertFalse(twice.paceSampled, "the fetch may belong to the other chunk");
        assertEquals(Announcements.STALE_NANOS, hints.staleNanos(), "one sample is no lead yet");
    }
}
