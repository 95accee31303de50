package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import dev.khameleon.core.spi.ServerPredictor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An application's {@link ServerPredictor} as its sessions call it: every outcome other than a
 * distribution over the application's {@code n} requests is a {@link ProtocolException} that
 * closes only the session whose state it was. Made once per application, at build time;
 * thread-safe if the predictor is.
 */
final class GuardedPredictor {
    private static final Logger log = LoggerFactory.getLogger(GuardedPredictor.class);

    private final ServerPredictor predictor;
    private final String application;
    private final int requestCount;

    GuardedPredictor(ServerPredictor predictor, String application, int requestCount) {
        this.predictor = predictor;
        this.application = application;
        this.requestCount = requestCount;
    }

    /**
     * Decodes a client's prediction state.
     *
     * @throws ProtocolException {@code invalid_state} if the predictor rejects the state with a
     *     {@code RuntimeException}; {@code internal_error} if it throws an {@code Error} (a bug,
     *     not a bad state) or returns no distribution or one over another number of requests
     */
    Distribution decode(JsonNode state) {
        Distribution d;
        try {
            d = predictor.decode(state);
        } catch (RuntimeException e) {
            throw new ProtocolException(ErrorCode.INVALID_STATE, "state rejected by the predictor: " + e.getMessage());
        } catch (Throwable e) {
            log.debug("{}: the predictor failed", application, e);
            throw new ProtocolException(ErrorCode.INTERNAL_ERROR, "the predictor failed: " + e);
        }
        if (d == null || d.requestCount() != requestCount) {
            throw new ProtocolException(ErrorCode.INTERNAL_ERROR, "the predictor returned "
                    + (d == null ? "no distribution" : "a distribution over " + d.requestCount()
                    + " requests instead of " + requestCount));
        }
        return d;
    }
}
