package dev.khameleon.server;

import dev.khameleon.core.protocol.ManifestRun;
import dev.khameleon.core.protocol.ResumeRequest;

import java.util.List;

/**
 * Collects a resume manifest from a hello and its {@code resumePart} messages and checks what can
 * be checked without the scheduler: at most {@code C} slots, request ids in range, a {@code nextSeq}
 * at most {@code 2^53 − 1 − C}, and in the end exactly {@code min(nextSeq, C)} slots. Keeps no runs once the resume is refused, so a bad
 * manifest costs no memory beyond one message.
 *
 * <p><b>Threading.</b> Confined to the session's event loop.
 */
final class ResumeAssembly {
    // Refusal codes sent in welcome.resumeRefused besides those of ResumeTokens (docs/protocol.md, section 8).
    static final String MANIFEST_TOO_LARGE = "manifest_too_large";
    static final String MANIFEST_INCONSISTENT = "manifest_inconsistent";
    static final String UNKNOWN_REQUEST = "unknown_request";
    static final String UNSUPPORTED = "unsupported";

    private final ResumeRequest request;
    private final int cacheBlocks;
    private final int requestCount;
    /** The slots described, oldest first: request id (-1 empty) and block index. */
    private final int[] ids;
    private final int[] blocks;
    private int slots;
    private int partsLeft;
    private String refusal;
    private String detail = "";

    /**
     * @param request      the hello's resume
     * @param cacheBlocks  {@code C} of the hello
     * @param requestCount the application's {@code n}
     * @param refusal      a refusal already decided (e.g. a bad token), or null
     */
    ResumeAssembly(ResumeRequest request, int cacheBlocks, int requestCount, String refusal) {
        this.request = request;
        this.cacheBlocks = cacheBlocks;
        this.requestCount = requestCount;
        this.partsLeft = request.parts();
        if (refusal == null && request.parts() > cacheBlocks) {
            refusal = MANIFEST_TOO_LARGE;
            detail = request.parts() + " parts for a ring of " + cacheBlocks + " blocks";
        }
        if (refusal == null && request.nextSeq() > ResumeRequest.MAX_NEXT_SEQ - cacheBlocks) {
            // Sequence numbers past 2^53 - 1 are not exact in a JavaScript number; no session gets that far.
            refusal = MANIFEST_INCONSISTENT;
            detail = "sequence number " + request.nextSeq() + " leaves no room for a ring of " + cacheBlocks
                    + " blocks below 2^53 - 1";
        }
        this.refusal = refusal;
        int expected = (int) Math.min(request.nextSeq(), cacheBlocks);
        this.ids = new int[refusal == null ? expected : 0];
        this.blocks = new int[ids.length];
        add(request.manifest());
    }

    /** Adds the runs of the hello or of one {@code resumePart}. */
    void add(List<ManifestRun> runs) {
        for (ManifestRun r : runs) {
            if (refusal != null) {
                return;
            }
            if (r.requestId() >= requestCount) {
                refuse(UNKNOWN_REQUEST, "request " + r.requestId() + " out of range [0, " + requestCount + ")");
                return;
            }
            if ((long) slots + r.count() > ids.length) {
                refuse((long) slots + r.count() > cacheBlocks ? MANIFEST_TOO_LARGE : MANIFEST_INCONSISTENT,
                        "more than " + ids.length + " slots described for a ring of " + cacheBlocks
                                + " blocks at sequence number " + request.nextSeq());
                return;
            }
            for (int k = 0; k < r.count(); k++) {
                ids[slots + k] = r.requestId();
                blocks[slots + k] = r.requestId() == ManifestRun.EMPTY ? 0 : r.firstBlock() + k;
            }
            slots += r.count();
        }
    }

    /** Counts one {@code resumePart}; returns whether it was the last one announced. */
    boolean partReceived() {
        return --partsLeft <= 0;
    }

    /** Whether {@code resumePart} messages are still due. */
    boolean awaitingParts() {
        return partsLeft > 0;
    }

    /** Ends the manifest: it must describe exactly {@code min(nextSeq, C)} slots. */
    void complete() {
        if (refusal == null && slots != ids.length) {
            refuse(MANIFEST_INCONSISTENT, "the manifest describes " + slots + " slots, a ring of " + cacheBlocks
                    + " blocks at sequence number " + request.nextSeq() + " has " + ids.length);
        }
    }

    void refuse(String code, String why) {
        if (refusal == null) {
            refusal = code;
            detail = why;
        }
    }

    /** The refusal code, or null while the manifest is acceptable. */
    String refusal() {
        return refusal;
    }

    /** Why, for the log. */
    String detail() {
        return detail;
    }

    long nextSeq() {
        return request.nextSeq();
    }

    int[] requestIds() {
        return ids;
    }

    int[] blockIndexes() {
        return blocks;
    }
}
