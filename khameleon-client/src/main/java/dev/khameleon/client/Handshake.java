package dev.khameleon.client;

import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ManifestRun;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.protocol.ProtocolException;
import dev.khameleon.core.protocol.ResumeRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the client says when a connection opens and what it requires of the server's answer: the
 * hello (with the ring's manifest when resuming), the checks that the welcome matches the hello,
 * and the checks of later messages against the welcome (block sizes, request id ranges, the
 * {@code scope} feature).
 *
 * <p><b>Threading.</b> Immutable; any thread. {@link #hello} and {@link #resumed} read the ring,
 * which is thread-safe.
 */
final class Handshake {
    // The client's messages keep the client's logger, so logging configurations still apply.
    private static final Logger LOG = LoggerFactory.getLogger(KhameleonClient.class);
    /**
     * Manifest runs per message: at most about 32 KiB of JSON, well inside a server's default
     * 64 KiB frame limit.
     */
    static final int RUNS_PER_MESSAGE = 1024;
    /** Most manifest messages one resume sends; a longer manifest is not sent (the client starts afresh). */
    static final int MAX_RESUME_MESSAGES = 64;

    private final String application;
    private final int cacheBlocks;
    private final Optional<String> token;
    private final boolean resume;
    private final List<String> features;
    private final RingBufferCache ring;

    /**
     * A handshake for {@code application} with a ring of {@code cacheBlocks} slots, sending
     * {@code token} if present; {@code resume} says whether it offers and asks to resume.
     */
    Handshake(String application, int cacheBlocks, Optional<String> token, boolean resume, RingBufferCache ring) {
        this.application = application;
        this.cacheBlocks = cacheBlocks;
        this.token = token;
        this.resume = resume;
        this.features = resume ? List.of(Protocol.FEATURE_RESUME) : List.of();
        this.ring = ring;
    }

    /** The application's name, as the hello sends it. */
    String application() {
        return application;
    }

    /**
     * The hello and, when it asks to resume with {@code resumeToken}, the {@code resumePart}
     * messages after it that carry the rest of the manifest. It asks to resume only if resume is
     * on, {@code resumeToken} is not null and the manifest fits {@link #MAX_RESUME_MESSAGES}
     * messages; otherwise it asks for a fresh session.
     */
    List<ControlMessage> hello(String resumeToken) {
        if (resume && resumeToken != null) {
            long nextSeq = ring.nextSeq();
            List<ManifestRun> runs = ring.manifest();
            int messages = Math.max(1, (runs.size() + RUNS_PER_MESSAGE - 1) / RUNS_PER_MESSAGE);
            if (messages <= MAX_RESUME_MESSAGES) {
                List<ControlMessage> out = new ArrayList<>(messages);
                out.add(hello(Optional.of(new ResumeRequest(resumeToken, nextSeq,
                        runs.subList(0, Math.min(runs.size(), RUNS_PER_MESSAGE)), messages - 1))));
                for (int k = 1; k < messages; k++) {
                    out.add(new ControlMessage.ResumePart(runs.subList(k * RUNS_PER_MESSAGE,
                            Math.min(runs.size(), (k + 1) * RUNS_PER_MESSAGE))));
                }
                return out;
            }
            LOG.info("cache manifest of {} runs too long to resume; starting afresh", runs.size());
        }
        return List.of(hello(Optional.empty()));
    }

    /** Whether {@code hello}, as {@link #hello(String)} made it, asks to resume. */
    static boolean asksToResume(List<ControlMessage> hello) {
        return hello.get(0) instanceof ControlMessage.Hello h && h.resume().isPresent();
    }

    /**
     * Checks that {@code welcome} answers this handshake's hello: same protocol version,
     * application and cache size.
     *
     * @throws ProtocolException if it does not
     */
    void checkWelcome(Welcome welcome) {
        if (welcome.protocol() != Protocol.VERSION || welcome.cacheBlocks() != cacheBlocks
                || !welcome.application().equals(application)) {
            throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "welcome does not match the hello: " + welcome);
        }
    }

    /**
     * Whether the session {@code welcome} starts continues the ring where it stopped: the hello
     * asked to resume ({@code askedToResume}), the server resumed, and at the ring's next sequence
     * number. Otherwise the cache must be emptied.
     */
    boolean resumed(Welcome welcome, boolean askedToResume) {
        return askedToResume && welcome.isResumed() && welcome.firstSeq() == ring.nextSeq();
    }

    /**
     * Checks a decoded block frame against the {@code welcome} of its session: the payload size it
     * announced and its request id range.
     *
     * @throws ProtocolException if the frame does not fit
     */
    static void checkBlock(BlockFrame frame, Welcome welcome) {
        if (frame.block().size() != welcome.blockSize()) {
            throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "block payload of "
                    + frame.block().size() + " bytes, but the welcome announced " + welcome.blockSize());
        }
        if (frame.block().requestId() >= welcome.requestCount()) {
            throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "requestId " + frame.block().requestId()
                    + " out of range [0, " + welcome.requestCount() + ")");
        }
    }

    /**
     * Checks a rebind against the {@code welcome} of its session (null before it): the session
     * must offer {@code scope} and every id must be in range.
     *
     * @throws ProtocolException if the rebind does not fit
     */
    static void checkRebind(ControlMessage.Rebind rebind, Welcome welcome) {
        if (welcome == null || !welcome.supports(Protocol.FEATURE_SCOPE)) {
            throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "rebind from a session that does not offer"
                    + " \"scope\"");
        }
        int[] ids = rebind.requestIds();
        if (ids[ids.length - 1] >= welcome.requestCount()) {
            throw new ProtocolException(ErrorCode.INVALID_MESSAGE, "rebind of request " + ids[ids.length - 1]
                    + ", out of range [0, " + welcome.requestCount() + ")");
        }
    }

    private ControlMessage.Hello hello(Optional<ResumeRequest> resumeRequest) {
        return new ControlMessage.Hello(Protocol.VERSION, application, cacheBlocks, token, features, resumeRequest);
    }
}
