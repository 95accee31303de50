package dev.khameleon.core.protocol;

import java.util.Objects;

/**
 * A protocol violation found while decoding: carries the {@link ErrorCode} to report to the peer
 * and a message naming the offending field and value.
 *
 * <p>It is an {@link IllegalArgumentException}, so callers that only care that input was bad can
 * catch that.
 */
public final class ProtocolException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    /** Creates an exception with {@code code} and a human-readable {@code message}. */
    public ProtocolException(ErrorCode code, String message) {
        super(message);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** Creates an exception with {@code code}, {@code message} and the underlying {@code cause}. */
    public ProtocolException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
    }

    /** The error code to send to the peer. */
    public ErrorCode code() {
        return code;
    }
}
