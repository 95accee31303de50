package dev.khameleon.core;

/**
 * A run of consecutive planned slots: slot {@code firstSeq + k} carries block
 * {@code blockIndex(k)} of request {@code requestId(k)}.
 *
 * <p>Immutable. Sequence numbers are global and never reused within a session: the client
 * puts the block with sequence number {@code s} in ring slot {@code s mod C}.
 */
public final class ScheduleChunk {

    private final long firstSeq;
    private final int[] requestIds;
    private final int[] blockIndexes;

    private ScheduleChunk(long firstSeq, int[] requestIds, int[] blockIndexes) {
        this.firstSeq = firstSeq;
        this.requestIds = requestIds;
        this.blockIndexes = blockIndexes;
    }

    /**
     * Creates a chunk, copying the arrays.
     *
     * @throws IllegalArgumentException if {@code firstSeq < 0} or the arrays differ in length
     */
    public static ScheduleChunk of(long firstSeq, int[] requestIds, int[] blockIndexes) {
        if (firstSeq < 0) {
            throw new IllegalArgumentException("firstSeq must be >= 0, was " + firstSeq);
        }
        if (requestIds.length != blockIndexes.length) {
            throw new IllegalArgumentException("requestIds and blockIndexes differ in length: "
                    + requestIds.length + " vs " + blockIndexes.length);
        }
        return new ScheduleChunk(firstSeq, requestIds.clone(), blockIndexes.clone());
    }

    /** An empty chunk that starts (and ends) at {@code seq}. */
    public static ScheduleChunk empty(long seq) {
        return of(seq, new int[0], new int[0]);
    }

    /** The sequence number of the first slot. */
    public long firstSeq() {
        return firstSeq;
    }

    /** The sequence number just past the last slot. */
    public long endSeq() {
        return firstSeq + requestIds.length;
    }

    /** The number of slots. */
    public int size() {
        return requestIds.length;
    }

    /** Whether the chunk has no slots. */
    public boolean isEmpty() {
        return requestIds.length == 0;
    }

    /** The request of the {@code k}-th slot. */
    public int requestId(int k) {
        return requestIds[k];
    }

    /** The block index of the {@code k}-th slot. */
    public int blockIndex(int k) {
        return blockIndexes[k];
    }

    @Override
    public String toString() {
        return "ScheduleChunk[seq " + firstSeq + ".." + endSeq() + ")";
    }
}
