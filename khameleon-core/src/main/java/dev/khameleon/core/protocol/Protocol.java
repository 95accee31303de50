package dev.khameleon.core.protocol;

/** The protocol's version number and fixed limits, as specified in {@code docs/protocol.md}. */
public final class Protocol {
    /** The protocol version this library speaks. */
    public static final int VERSION = 1;
    /** Maximum length, in characters, of an application name. */
    public static final int MAX_APPLICATION_LENGTH = 256;
    /** Maximum length, in characters, of an authentication token. */
    public static final int MAX_TOKEN_LENGTH = 4096;
    /** Maximum length, in characters, of a session id. */
    public static final int MAX_SESSION_ID_LENGTH = 64;
    /** Maximum length, in characters, of an error code. */
    public static final int MAX_ERROR_CODE_LENGTH = 64;
    /** Maximum length, in characters, of an error message's human-readable text. */
    public static final int MAX_ERROR_MESSAGE_LENGTH = 1024;
    /** Largest receive rate a report may carry, in bytes per second. */
    public static final double MAX_BYTES_PER_SECOND = 1e12;

    /**
     * The welcome feature saying that the application binds request ids per session: the client
     * may send {@code scope} messages and must honour {@code rebind} messages and block generations.
     */
    public static final String FEATURE_SCOPE = "scope";
    /**
     * The feature saying that sessions can be resumed on another connection, on this or another
     * node sharing the resume key: in a welcome, the server issues resume tokens and accepts a
     * hello's {@code resume}; in a hello, the client takes {@code resumeToken} messages.
     */
    public static final String FEATURE_RESUME = "resume";
    /** Maximum length, in characters, of a resume token. */
    public static final int MAX_RESUME_TOKEN_LENGTH = 1024;
    /** Most features a welcome lists, and most characters of each feature name. */
    public static final int MAX_FEATURES = 64;
    /** Most {@code [requestId, generation]} pairs one {@code rebind} message carries. */
    public static final int MAX_REBIND_PAIRS = 4096;

    private Protocol() {
    }
}
