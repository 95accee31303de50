package dev.khameleon.core.protocol;

import java.util.List;
import java.util.Objects;

/**
 * The {@code resume} field of a {@code hello}: the client asks to continue an earlier session
 * on this connection, with its ring cache as it is ({@code docs/protocol.md}, section 8).
 *
 * @param token    the last resume token the client received, 1 to
 *                 {@value Protocol#MAX_RESUME_TOKEN_LENGTH} characters
 * @param nextSeq  the sequence number the client expects next, in {@code [0, 2^53 − 1]} (exact
 *                 in every JSON implementation, and far from overflowing a {@code long} when the
 *                 server adds a ring's length to it)
 * @param manifest the first runs of the ring's manifest, in FIFO order (oldest slot first); may
 *                 be empty when {@code nextSeq == 0}
 * @param parts    how many {@code resumePart} messages carry the rest of the manifest, {@code >= 0}
 */
public record ResumeRequest(String token, long nextSeq, List<ManifestRun> manifest, int parts) {
    /** The largest {@code nextSeq}: {@code 2^53 − 1}. */
    public static final long MAX_NEXT_SEQ = (1L << 53) - 1;

    /** Validates the fields and copies the manifest. */
    public ResumeRequest {
        Fields.checkString("resume.token", token, 1, Protocol.MAX_RESUME_TOKEN_LENGTH);
        Fields.checkMin("resume.nextSeq", nextSeq, 0);
        if (nextSeq > MAX_NEXT_SEQ) {
            throw Fields.invalid("resume.nextSeq must be <= " + MAX_NEXT_SEQ + ", was " + nextSeq);
        }
        manifest = List.copyOf(Objects.requireNonNull(manifest, "manifest"));
        Fields.checkMin("resume.parts", parts, 0);
    }

    @Override
    public String toString() {
        // The token is a credential: never print it.
        return "ResumeRequest[nextSeq=" + nextSeq + ", runs=" + manifest.size() + ", parts=" + parts + "]";
    }
}
