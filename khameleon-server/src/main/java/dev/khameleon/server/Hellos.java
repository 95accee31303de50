package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.Protocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * What a session answers a hello: the checks it must pass (protocol, application, cache size, the
 * application's authenticator, the server's session and cache-block limits), each refusal with the
 * code and message the client gets, and the welcome. Stateless.
 */
final class Hellos {
    private static final Logger log = LoggerFactory.getLogger(Hellos.class);

    /** Why a hello is refused: the error the session closes with. */
    record Refusal(ErrorCode code, String message) {
    }

    private Hellos() {
    }

    /**
     * Checks {@code h} against {@code application} and the server's settings, calling the
     * application's authenticator last; an authenticator that throws, {@code Error}s included,
     * refuses the hello as {@code internal_error}.
     *
     * @return null if the hello may register, else why not
     */
    static Refusal check(ControlMessage.Hello h, Application application, ServerConfig config, String sessionId) {
        if (h.protocol() != Protocol.VERSION) {
            return new Refusal(ErrorCode.UNSUPPORTED_VERSION, "this server speaks protocol " + Protocol.VERSION
                    + ", the client asked for " + h.protocol());
        }
        if (!h.application().equals(application.name())) {
            return new Refusal(ErrorCode.UNKNOWN_APPLICATION, "application \"" + h.application()
                    + "\" is not served at " + application.path() + " (it serves \"" + application.name() + "\")");
        }
        if (h.cacheBlocks() > config.maxCacheBlocks()) {
            return new Refusal(ErrorCode.LIMIT_EXCEEDED, "cacheBlocks " + h.cacheBlocks()
                    + " exceeds the server's limit " + config.maxCacheBlocks());
        }
        boolean accepted;
        try {
            accepted = application.authenticator().accept(h.token());
        } catch (Throwable e) { // user code: an Error must not escape onto the event loop either
            log.debug("session {}: authenticator of {} threw", sessionId, application.name(), e);
            return new Refusal(ErrorCode.INTERNAL_ERROR, "the authenticator failed: " + e);
        }
        return accepted ? null : new Refusal(ErrorCode.UNAUTHORIZED, "the token was refused");
    }

    /** Why the server's registry refused a session of {@code cacheBlocks}, or null if it registered it. */
    static Refusal registration(ServerRuntime.Registration r, ServerConfig config, int cacheBlocks,
                                long schedulerBytes) {
        return switch (r) {
            case SESSION_CAP -> new Refusal(ErrorCode.TOO_MANY_SESSIONS, "the server is at its limit of "
                    + config.maxSessions() + " sessions; try again later");
            case CACHE_BUDGET -> new Refusal(ErrorCode.TOO_MANY_SESSIONS, "the server's budget of "
                    + config.maxTotalCacheBlocks() + " cache blocks across sessions cannot take " + cacheBlocks
                    + " more; try again later or with a smaller cache");
            case SCHEDULER_BUDGET -> new Refusal(ErrorCode.TOO_MANY_SESSIONS, "the server's budget of "
                    + config.maxSchedulerBytes() + " bytes of scheduler state across sessions cannot take "
                    + schedulerBytes + " more; try again later or with a smaller cache");
            case DRAINING -> new Refusal(ErrorCode.SHUTDOWN,
                    "the server is draining; connect again to reach another one");
            case REGISTERED -> null;
        };
    }

    /**
     * The welcome of session {@code sessionId} of {@code application}, starting at {@code firstSeq}:
     * offers {@code scope} to an application that binds requests per session and {@code resume} to
     * any other.
     */
    static ControlMessage.Welcome welcome(Application application, String sessionId, int cacheBlocks, long firstSeq,
                                          Optional<String> token, Optional<Boolean> resumed,
                                          Optional<String> refused) {
        boolean scoped = application.guardedScope() != null;
        List<String> features = List.of(scoped ? Protocol.FEATURE_SCOPE : Protocol.FEATURE_RESUME);
        GuardedBlockSource source = application.guardedSource();
        return new ControlMessage.Welcome(Protocol.VERSION, sessionId, application.name(), source.blockSize(),
                source.requestCount(), cacheBlocks, Arrays.stream(application.horizonsMillis()).boxed().toList(),
                firstSeq, application.blockCounts(), features, token, resumed, refused);
    }
}
