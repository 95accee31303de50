package dev.khameleon.core.spi;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;

/**
 * Decides which block goes into each slot of a session's push stream.
 *
 * <p>Slots are numbered by global sequence number {@code s = 0, 1, 2, …}; slot {@code s}
 * lands in the client's ring at {@code s mod C}, so slots are planned in batches of
 * {@code C} (the cache size in blocks) and a batch never gives a request more blocks than
 * it has. The scheduler keeps what it has planned; {@link #replan} discards only the planned
 * slots from a given sequence number on, never earlier ones (they may already be sent).
 *
 * <p>Not thread-safe: one session's scheduler is driven by one task at a time.
 */
public interface Scheduler {

    /**
     * Installs a new distribution to use from slot {@code fromSeq} on: planned slots at or after
     * {@code fromSeq} are discarded and will be planned again with {@code distribution};
     * earlier slots are kept. Slot {@code fromSeq + k} is taken to happen
     * {@code k · slotMillis} milliseconds after the distribution's time origin.
     *
     * <p>The built-in schedulers accept every {@code fromSeq} from {@code nextSeq() − C} up to
     * {@code nextSeq()} that is not below the previous re-plan's {@code fromSeq} (they keep the
     * planned slots of the current and the previous batch), which covers a caller that re-plans
     * from its sender's never-decreasing position.
     *
     * @param fromSeq    the first sequence number to re-plan; at least the first slot not yet
     *                   handed out for sending, at most {@link #nextSeq()}
     * @param slotMillis the time to put one block on the network, {@code > 0}
     * @throws IllegalArgumentException if the distribution's request count does not match, or
     *     {@code fromSeq} or {@code slotMillis} is out of range
     */
    void replan(Distribution distribution, long fromSeq, double slotMillis);

    /**
     * Plans up to {@code maxBlocks} further slots, starting at {@link #nextSeq()}. Returns an
     * empty chunk when there is nothing to plan (no distribution yet, or every block of every
     * request with non-zero probability already scheduled in this batch).
     */
    ScheduleChunk next(int maxBlocks);

    /**
     * The client drops every block of {@code requestIds} it holds (those requests now mean other
     * content): from {@link #nextSeq()} on, plan each as if none of its blocks had been planned in
     * this batch, starting again at block 0. Slots already planned are kept. Call it right after a
     * {@link #replan} from the slot where the new meaning starts; later re-plans never go back
     * before it.
     *
     * <p>The built-in schedulers take {@code O(C log k + b · m log K)} for {@code k} ids of which
     * {@code b} blocks were planned in the batch. The default throws
     * {@link UnsupportedOperationException}: a scheduler that keeps counting the old blocks would
     * send the new content from the middle, which no client can use.
     *
     * @param requestIds the requests, in any order; not modified
     * @throws IllegalArgumentException if an id is out of range
     */
    default void invalidate(int[] requestIds) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support invalidate(requestIds)");
    }

    /**
     * Starts this scheduler, before its first {@link #replan}, where a resumed session's client
     * is: the next slot is {@code nextSeq}, and the slots before it hold what the client's ring
     * holds, as if this scheduler had planned them. Used when a client reconnects (to this or
     * another node) and asks to keep its cache ({@code docs/protocol.md}, section 8).
     *
     * <p>The built-in schedulers count the blocks of the current batch (slots from
     * {@code nextSeq − nextSeq mod C} on) as planned, so they are not planned again in that batch,
     * and take {@code O(C)}. The default returns {@code false}: the session then starts afresh at
     * sequence number 0 and the client clears its cache, which is always correct.
     *
     * @param nextSeq      the sequence number of the next slot, {@code >= 0}
     * @param requestIds   the request of each of the {@code min(nextSeq, C)} slots before
     *                     {@code nextSeq}, oldest first; -1 for an empty slot; not modified
     * @param blockIndexes the block index of each of those slots (0 for an empty one); not modified
     * @return whether this scheduler resumed; {@code false} leaves it as it was
     * @throws IllegalArgumentException if the arrays do not describe {@code min(nextSeq, C)} slots,
     *     or describe a ring this scheduler could not have planned (a request id or block index out
     *     of range, or a request's blocks in the current batch not {@code 0, 1, 2, …} in order);
     *     the scheduler is then left as it was
     * @throws IllegalStateException if this scheduler has already planned or been given a distribution
     */
    default boolean resume(long nextSeq, int[] requestIds, int[] blockIndexes) {
        return false;
    }

    /**
     * The response of {@code requestId}, planned so far on an upper bound of its block count (a
     * count told lazily, {@link BlockSource#isBlockCountBound}), has exactly {@code blockCount}
     * blocks: from {@link #nextSeq()} on, no block index at or past it is planned, and the request
     * is weighed as a response of that many blocks. {@code blockCount} 0 drops the request: it is
     * not planned again. Slots already planned are kept, so a caller that planned an index at or
     * past the count re-plans ({@link #replan}) from the first such slot, before or after this
     * call. Telling the count a request already has again is a no-op.
     *
     * <p>The built-in schedulers take {@code O(blockCount + m log K)} for the first call per
     * request, and {@code O(1)} for a repeat. The default throws {@link UnsupportedOperationException}: a
     * scheduler that ignored the count would plan blocks that do not exist.
     *
     * @param blockCount the exact count, in {@code [1, bound]}, or 0 to drop the request
     * @throws IllegalArgumentException if {@code requestId} is out of range, {@code blockCount} is
     *     negative, above the request's bound, contradicts an exact count, or changes a count
     *     told before (other than to 0)
     */
    default void blockCountKnown(int requestId, int blockCount) {
        throw new UnsupportedOperationException(getClass().getName()
                + " does not support blockCountKnown(requestId, blockCount)");
    }

    /** The first sequence number not yet planned. */
    long nextSeq();

    /** {@code C}: the client cache size in blocks, the length of a batch. */
    int cacheBlocks();
}
