package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Bindings;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import dev.khameleon.core.spi.RequestScope;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An application's {@link RequestScope} as its sessions call it: a rejected or failed scope is a
 * {@link ProtocolException} that closes only the session that sent it. Made once per application,
 * at build time; thread-safe if the scope is.
 */
final class GuardedRequestScope {
    private static final Logger log = LoggerFactory.getLogger(GuardedRequestScope.class);

    private final RequestScope scope;
    private final String application;

    GuardedRequestScope(RequestScope scope, String application) {
        this.scope = scope;
        this.application = application;
    }

    /**
     * Decodes a client's scope.
     *
     * @throws ProtocolException {@code invalid_scope} if the application rejects it with a
     *     {@code RuntimeException}; {@code internal_error} if it throws an {@code Error} or returns null
     */
    Bindings decode(JsonNode clientScope) {
        Bindings b;
        try {
            b = scope.decode(clientScope);
        } catch (RuntimeException e) {
            throw new ProtocolException(ErrorCode.INVALID_SCOPE, "scope rejected by the application: " + e.getMessage());
        } catch (Throwable e) {
            log.debug("{}: the request scope failed", application, e);
            throw new ProtocolException(ErrorCode.INTERNAL_ERROR, "the request scope failed: " + e);
        }
        if (b == null) {
            throw new ProtocolException(ErrorCode.INTERNAL_ERROR, "the request scope returned no bindings");
        }
        return b;
    }
}
