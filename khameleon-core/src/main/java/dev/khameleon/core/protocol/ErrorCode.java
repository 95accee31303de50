package dev.khameleon.core.protocol;

import java.util.Optional;

/**
 * The error codes of the protocol's {@code error} message, each with the WebSocket close status
 * that follows it (see {@code docs/protocol.md}, section 3.2).
 */
public enum ErrorCode {
    /** A text frame is not one JSON object. */
    MALFORMED_JSON("malformed_json", 1007),
    /** A field is missing, of the wrong type or out of range. */
    INVALID_MESSAGE("invalid_message", 1007),
    /** The server predictor rejected a prediction state. */
    INVALID_STATE("invalid_state", 1007),
    /** The application's request scope rejected a scope (or bound an id out of range). */
    INVALID_SCOPE("invalid_scope", 1007),
    /** The message type is missing or unknown. */
    UNKNOWN_TYPE("unknown_type", 1002),
    /** The first message was not {@code hello}. */
    MISSING_HELLO("missing_hello", 1002),
    /** A second {@code hello}. */
    DUPLICATE_HELLO("duplicate_hello", 1002),
    /** The client's protocol version is not spoken by the server. */
    UNSUPPORTED_VERSION("unsupported_version", 1002),
    /** The client sent a binary frame. */
    UNSUPPORTED_DATA("unsupported_data", 1003),
    /** The hello names an application other than the one at the connection's path. */
    UNKNOWN_APPLICATION("unknown_application", 1008),
    /** The authentication token was refused. */
    UNAUTHORIZED("unauthorized", 1008),
    /** A value exceeds a server limit. */
    LIMIT_EXCEEDED("limit_exceeded", 1008),
    /** The client stopped reading. */
    SLOW_CONSUMER("slow_consumer", 1008),
    /** A frame exceeded the maximum payload length. */
    FRAME_TOO_LARGE("frame_too_large", 1009),
    /** The server's session cap is reached. */
    TOO_MANY_SESSIONS("too_many_sessions", 1013),
    /** The client sent nothing for the read-idle timeout. */
    IDLE_TIMEOUT("idle_timeout", 1001),
    /** The server is shutting down. */
    SHUTDOWN("shutdown", 1001),
    /** A bug in the server. */
    INTERNAL_ERROR("internal_error", 1011);

    private final String wireName;
    private final int closeStatus;

    ErrorCode(String wireName, int closeStatus) {
        this.wireName = wireName;
        this.closeStatus = closeStatus;
    }

    /** The code as it appears on the wire, e.g. {@code "invalid_state"}. */
    public String wireName() {
        return wireName;
    }

    /** The WebSocket close status (RFC 6455, section 7.4) that follows this error. */
    public int closeStatus() {
        return closeStatus;
    }

    /** The code with wire name {@code name}, or empty for a code this version does not know. */
    public static Optional<ErrorCode> fromWireName(String name) {
        for (ErrorCode c : values()) {
            if (c.wireName.equals(name)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }
}
