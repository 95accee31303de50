package dev.khameleon.core.protocol;

/**
 * One run of a resume manifest: {@code count} consecutive ring slots, in FIFO order, holding
 * blocks {@code firstBlock .. firstBlock + count − 1} of {@code requestId}; or, with
 * {@code requestId == }{@value #EMPTY}, {@code count} empty slots ({@code firstBlock} then 0).
 *
 * @param requestId  the request, {@code >= 0} (the server checks the upper bound), or {@value #EMPTY}
 * @param firstBlock the block index in the first of the slots, {@code >= 0}; 0 for empty slots
 * @param count      the number of slots, {@code >= 1}
 */
public record ManifestRun(int requestId, int firstBlock, int count) {
    /** The request id of a run of empty slots. */
    public static final int EMPTY = -1;

    /** Validates the fields; failures are {@code invalid_message}. */
    public ManifestRun {
        Fields.checkMin("manifest[][0]", requestId, EMPTY);
        Fields.checkMin("manifest[][1]", firstBlock, 0);
        Fields.checkMin("manifest[][2]", count, 1);
        if (requestId == EMPTY && firstBlock != 0) {
            throw Fields.invalid("manifest: a run of empty slots must have firstBlock 0, had " + firstBlock);
        }
        if ((long) firstBlock + count > Integer.MAX_VALUE) {
            throw Fields.invalid("manifest: firstBlock " + firstBlock + " + count " + count + " overflows");
        }
    }
}
