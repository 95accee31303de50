package dev.khameleon.server.spi;

import java.util.Optional;

/**
 * Decides whether a client's hello may open a session, from its optional token.
 *
 * <p>Called on the connection's event loop: it must answer at once, without blocking (look the
 * token up in memory). Must be thread-safe. An exception counts as a refusal and is logged.
 */
@FunctionalInterface
public interface Authenticator {

    /** Whether a client presenting {@code token} (empty if it sent none) may open a session. */
    boolean accept(Optional<String> token);

    /** Accepts every client, with or without a token: the default. */
    static Authenticator acceptAll() {
        return token -> true;
    }

    /** Accepts exactly the clients presenting {@code expected}. */
    static Authenticator sharedSecret(String expected) {
        if (expected == null || expected.isEmpty()) {
            throw new IllegalArgumentException("the shared secret must be non-empty");
        }
        return token -> token.isPresent() && java.security.MessageDigest.isEqual(
                token.get().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                expected.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
