package dev.khameleon.server;

import dev.khameleon.server.Plan.Slot;

import java.util.concurrent.TimeUnit;

/**
 * Which of a session's planned blocks are fetched ahead of its sender: the first few planned slots
 * before the plan's cut, as many as the sender writes within twice the source's mean fetch time,
 * and, for requests whose block count is told lazily, only what that count allows (block 0 first,
 * which tells it; none past it).
 *
 * <p><b>Threading.</b> Confined to the session's thread, like its {@link PushController}.
 */
final class FetchAhead {
    /** The least time of sending that fetched blocks cover ahead of the sender. */
    private static final long MIN_FETCH_LEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** The fewest planned blocks fetched ahead of the sender (the head and the next). */
    private static final int MIN_FETCH_WINDOW = 2;
    private static final long[] NO_COUNTS = new long[0];

    private final Application application;
    private final Plan plan;
    private final SlotFetcher fetcher;
    /** The exact counts of lazily counted requests; null when the application has none. */
    private final LazyCountTable lazyCounts;
    private final int maxWindow;

    /**
     * @param lazyCounts the session's lazily told counts; null when the application has none
     * @param maxWindow  the server's {@code fetchWindow}, the most blocks fetched ahead
     */
    FetchAhead(Application application, Plan plan, SlotFetcher fetcher, LazyCountTable lazyCounts, int maxWindow) {
        this.application = application;
        this.plan = plan;
        this.fetcher = fetcher;
        this.lazyCounts = lazyCounts;
        this.maxWindow = maxWindow;
    }

    /**
     * How many planned blocks to fetch ahead of the sender: those it will write within twice the
     * source's mean fetch time (at least {@link #MIN_FETCH_LEAD_NANOS}) at the current pace, and at
     * least up to the first block a re-plan can place (so that a new state's first block is fetched
     * while the margin's old blocks wait), within {@code [MIN_FETCH_WINDOW, fetchWindow]}. Fetching
     * further ahead fetches blocks that the next state's re-plan mostly drops: with the whole window
     * fetched a session read several blocks from its source for every block it sent.
     *
     * @param pacedSlotNanos how long one frame takes at the current pace
     * @param replanMargin   the slots a re-plan leaves to the old plan
     */
    int window(double pacedSlotNanos, int replanMargin) {
        double lead = Math.max(MIN_FETCH_LEAD_NANOS, 2 * fetcher.meanFetchNanos());
        long w = Math.max(1 + (long) Math.ceil(lead / pacedSlotNanos), replanMargin + 2L);
        return (int) Math.min(maxWindow, Math.max(MIN_FETCH_WINDOW, w));
    }

    /** Starts the fetches due among the first {@code window} planned slots. */
    void start(int window) {
        if (lazyCounts == null) {
            plan.forEachToFetch(window, fetcher::start);
            return;
        }
        plan.forEachToFetch(window, this::startCounted);
        // Learned while the plan was walked (a fetch may end within start): cut only now.
        if (lazyCounts.takeCapsPending()) {
            plan.replanFromFirst(Long.MIN_VALUE, this::beyondCount);
        }
    }

    /**
     * A chunk from {@code firstSeq} on was appended: planned while a count was being learned, its
     * blocks past that count do not exist and are re-planned.
     */
    void appended(long firstSeq) {
        if (lazyCounts != null) {
            plan.replanFromFirst(firstSeq, this::beyondCount);
        }
    }

    /** The counts learned since the last job, for the next one. */
    long[] drainTold() {
        return lazyCounts == null ? NO_COUNTS : lazyCounts.drainTold();
    }

    /** Puts back the counts a withdrawn job carried. */
    void restoreTold(long[] told) {
        if (lazyCounts != null) {
            lazyCounts.restore(told);
        }
    }

    /**
     * Starts fetching {@code s} unless its request's count is told lazily and not known yet (only
     * block 0 goes first, and tells it; the plan's head is always fetched, so nothing waits for
     * ever) or known to end before it (a re-plan takes the slot back).
     */
    private boolean startCounted(Slot s) {
        if (application.isBlockCountBound(s.requestId)) {
            int known = lazyCounts.known(s.requestId);
            boolean hold = known >= 0 ? s.blockIndex >= known : s.blockIndex > 0 && s.seq != plan.nextSeq();
            if (hold) {
                return true;
            }
        }
        return fetcher.start(s);
    }

    private boolean beyondCount(Slot s) {
        return lazyCounts.beyondCount(s.requestId, s.blockIndex);
    }
}
