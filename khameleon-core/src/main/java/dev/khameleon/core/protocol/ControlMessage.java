package dev.khameleon.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A JSON control message of the protocol ({@code docs/protocol.md}, section 3). Client messages
 * are {@link Hello}, {@link ResumePart}, {@link PredictionState}, {@link RateReport},
 * {@link RequestEvent}, {@link Scope} and {@link Bye}; server messages are {@link Welcome},
 * {@link ResumeToken}, {@link Rebind} and {@link ErrorMessage}.
 *
 * <p>Every record validates its fields on construction with the rules of the specification and
 * throws {@link ProtocolException} ({@link ErrorCode#INVALID_MESSAGE}) naming the field, so a
 * message that exists is one that may be sent.
 */
public sealed interface ControlMessage {

    /** The message's {@code "type"} on the wire. */
    String type();

    /** Whether clients send this message type (as opposed to servers). */
    boolean fromClient();

    /**
     * The first client message.
     *
     * @param protocol    the protocol version the client speaks (any integer: a server answers
     *                    an unsupported one with {@link ErrorCode#UNSUPPORTED_VERSION})
     * @param application the application's name, 1 to {@value Protocol#MAX_APPLICATION_LENGTH} characters
     * @param cacheBlocks {@code C}, the client ring size in blocks, {@code >= 1}
     * @param token       an optional authentication token, at most {@value Protocol#MAX_TOKEN_LENGTH} characters
     * @param features    the optional protocol features the client takes part in (e.g.
     *                    {@link Protocol#FEATURE_RESUME}), at most {@value Protocol#MAX_FEATURES} of 1 to
     *                    {@value Protocol#MAX_FEATURES} characters; servers ignore names they do not know
     * @param resume      the earlier session to continue, if any
     */
    record Hello(int protocol, String application, int cacheBlocks, Optional<String> token, List<String> features,
                 Optional<ResumeRequest> resume)
            implements ControlMessage {
        /** A hello without features or resume. */
        public Hello(int protocol, String application, int cacheBlocks, Optional<String> token) {
            this(protocol, application, cacheBlocks, token, List.of(), Optional.empty());
        }

        /** Validates the fields. */
        public Hello {
            Fields.checkString("application", application, 1, Protocol.MAX_APPLICATION_LENGTH);
            Fields.checkMin("cacheBlocks", cacheBlocks, 1);
            Objects.requireNonNull(token, "token");
            token.ifPresent(t -> Fields.checkString("token", t, 0, Protocol.MAX_TOKEN_LENGTH));
            features = checkFeatures(features);
            Objects.requireNonNull(resume, "resume");
        }

        /** A hello for the current {@link Protocol#VERSION} without a token. */
        public static Hello of(String application, int cacheBlocks) {
            return new Hello(Protocol.VERSION, application, cacheBlocks, Optional.empty());
        }

        /** Whether the client takes part in {@code feature}, e.g. {@link Protocol#FEATURE_RESUME}. */
        public boolean supports(String feature) {
            return features.contains(feature);
        }

        @Override
        public String type() {
            return "hello";
        }

        @Override
        public boolean fromClient() {
            return true;
        }

        @Override
        public String toString() {
            // The token is a secret: never print it.
            return "Hello[protocol=" + protocol + ", application=" + application + ", cacheBlocks=" + cacheBlocks
                    + ", token=" + (token.isPresent() ? "<present>" : "<absent>") + ", features=" + features
                    + ", resume=" + resume.map(Object::toString).orElse("<absent>") + "]";
        }
    }

    /** Copies {@code features} after checking the count and each name's length. */
    private static List<String> checkFeatures(List<String> features) {
        List<String> copy = List.copyOf(features);
        if (copy.size() > Protocol.MAX_FEATURES) {
            throw Fields.invalid("features must list at most " + Protocol.MAX_FEATURES + ", listed " + copy.size());
        }
        for (String f : copy) {
            Fields.checkString("features[]", f, 1, Protocol.MAX_FEATURES);
        }
        return copy;
    }

    /**
     * More of a resume manifest: a hello whose {@code resume} announces {@code parts} such
     * messages is followed by exactly that many, before any other message.
     *
     * @param manifest the next runs, in FIFO order, at least one
     */
    record ResumePart(List<ManifestRun> manifest) implements ControlMessage {
        /** Validates and copies the runs. */
        public ResumePart {
            manifest = List.copyOf(manifest);
            if (manifest.isEmpty()) {
                throw Fields.invalid("resumePart.manifest must hold at least one run");
            }
        }

        @Override
        public String type() {
            return "resumePart";
        }

        @Override
        public boolean fromClient() {
            return true;
        }
    }

    /**
     * A fresh resume token for the session, replacing the previous one; sent only to clients
     * whose hello lists {@link Protocol#FEATURE_RESUME}, before the previous token expires.
     *
     * @param token the token, 1 to {@value Protocol#MAX_RESUME_TOKEN_LENGTH} characters
     */
    record ResumeToken(String token) implements ControlMessage {
        /** Validates the field. */
        public ResumeToken {
            Fields.checkString("token", token, 1, Protocol.MAX_RESUME_TOKEN_LENGTH);
        }

        @Override
        public String toString() {
            return "ResumeToken[<present>]";
        }

        @Override
        public String type() {
            return "resumeToken";
        }

        @Override
        public boolean fromClient() {
            return false;
        }
    }

    /**
     * A prediction state from the client half of the predictor.
     *
     * @param timeMillis client clock when the state was computed, {@code >= 0}
     * @param state      the state; the caller must not modify it afterwards
     */
    record PredictionState(long timeMillis, JsonNode state) implements ControlMessage {
        /** Validates the fields. */
        public PredictionState {
            Fields.checkMin("time", timeMillis, 0);
            Objects.requireNonNull(state, "state");
        }

        @Override
        public String type() {
            return "state";
        }

        @Override
        public boolean fromClient() {
            return true;
        }
    }

    /**
     * A receive-rate report.
     *
     * @param timeMillis     client clock at the end of the measured interval, {@code >= 0}
     * @param bytesPerSecond block-frame bytes received per second: finite, in
     *                       {@code [0, }{@value Protocol#MAX_BYTES_PER_SECOND}{@code ]}
     * @param nextSeq        the sequence number the client expected next when it measured (one
     *                       past the last block frame it received or skipped), in
     *                       {@code [0, 2^53 − 1]}, or {@link #NO_SEQ} when the client does not say;
     *                       the server bounds its bytes in flight with it
     */
    record RateReport(long timeMillis, double bytesPerSecond, long nextSeq) implements ControlMessage {
        /** The {@code nextSeq} of a report that does not carry one. */
        public static final long NO_SEQ = -1;

        /** Validates the fields. */
        public RateReport {
            Fields.checkMin("time", timeMillis, 0);
            if (!Double.isFinite(bytesPerSecond) || bytesPerSecond < 0
                    || bytesPerSecond > Protocol.MAX_BYTES_PER_SECOND) {
                throw Fields.invalid("bytesPerSecond must be finite and in [0, " + Protocol.MAX_BYTES_PER_SECOND
                        + "], was " + bytesPerSecond);
            }
            if (nextSeq != NO_SEQ && (nextSeq < 0 || nextSeq > ResumeRequest.MAX_NEXT_SEQ)) {
                throw Fields.invalid("nextSeq must be in [0, " + ResumeRequest.MAX_NEXT_SEQ + "], was " + nextSeq);
            }
        }

        /** A report without a sequence number, as clients before the {@code nextSeq} field send. */
        public RateReport(long timeMillis, double bytesPerSecond) {
            this(timeMillis, bytesPerSecond, NO_SEQ);
        }

        /** Whether the report carries {@link #nextSeq}. */
        public boolean hasNextSeq() {
            return nextSeq != NO_SEQ;
        }

        @Override
        public String type() {
            return "rate";
        }

        @Override
        public boolean fromClient() {
            return true;
        }
    }

    /**
     * An explicit request event: the application asked for {@code requestId}.
     *
     * @param timeMillis client clock of the request, {@code >= 0}
     * @param requestId  the request, {@code >= 0} (the server checks the upper bound)
     * @param miss       whether the client's cache had no block of it: the server then fetches that
     *                   request's blocks ahead of every speculative fetch (false when not said)
     */
    record RequestEvent(long timeMillis, int requestId, boolean miss) implements ControlMessage {
        /** Validates the fields. */
        public RequestEvent {
            Fields.checkMin("time", timeMillis, 0);
            Fields.checkMin("request", requestId, 0);
        }

        /** A request event that does not say whether it was a miss. */
        public RequestEvent(long timeMillis, int requestId) {
            this(timeMillis, requestId, false);
        }

        @Override
        public String type() {
            return "request";
        }

        @Override
        public boolean fromClient() {
            return true;
        }
    }

    /**
     * The client's request scope (e.g. its brushes): decoded by the application's
     * {@code RequestScope} into what each request id means for this session. Only sent to a
     * server whose welcome lists {@link Protocol#FEATURE_SCOPE}.
     *
     * @param scope the scope; the caller must not modify it afterwards
     */
    record Scope(JsonNode scope) implements ControlMessage {
        /** Validates the fields. */
        public Scope {
            Objects.requireNonNull(scope, "scope");
        }

        @Override
        public String type() {
            return "scope";
        }

        @Override
        public boolean fromClient() {
            return true;
        }
    }

    /** The client is leaving on purpose. */
    record Bye() implements ControlMessage {
        @Override
        public String type() {
            return "bye";
        }

        @Override
        public boolean fromClient() {
            return true;
        }
    }

    /**
     * The server's answer to a valid hello: what the client needs to interpret block frames.
     *
     * @param protocol       the protocol version, {@code >= 1}
     * @param session        the session id, 1 to {@value Protocol#MAX_SESSION_ID_LENGTH} characters
     * @param application    the application's name
     * @param blockSize      payload bytes per block frame, {@code >= 1}
     * @param requestCount   {@code n}, {@code >= 1}
     * @param cacheBlocks    {@code C}, echoing the hello, {@code >= 1}
     * @param horizonsMillis the predictor's horizons: at least one, {@code >= 0}, strictly increasing
     * @param firstSeq       the first block frame's sequence number, {@code >= 0}
     * @param blockCounts    the block count of every request (an upper bound for those in its lazy
     *                       ranges); its explicit ids and lazy ranges must be {@code < n}
     * @param features       the optional protocol features the session offers (e.g.
     *                       {@link Protocol#FEATURE_SCOPE}), at most {@value Protocol#MAX_FEATURES} of
     *                       1 to {@value Protocol#MAX_FEATURES} characters; names a client does not know
     *                       are ignored
     * @param resumeToken    a token with which the client may resume this session later, offered with
     *                       {@link Protocol#FEATURE_RESUME}
     * @param resumed        present if the hello asked to resume: whether it did (then {@code firstSeq}
     *                       is the hello's {@code nextSeq} and the client keeps its cache)
     * @param resumeRefused  why a resume was refused (only with {@code resumed} false), a code of 1 to
     *                       {@value Protocol#MAX_ERROR_CODE_LENGTH} characters
     */
    record Welcome(int protocol, String session, String application, int blockSize, int requestCount,
                   int cacheBlocks, List<Long> horizonsMillis, long firstSeq, BlockCounts blockCounts,
                   List<String> features, Optional<String> resumeToken, Optional<Boolean> resumed,
                   Optional<String> resumeRefused)
            implements ControlMessage {
        /** A welcome without resume fields. */
        public Welcome(int protocol, String session, String application, int blockSize, int requestCount,
                       int cacheBlocks, List<Long> horizonsMillis, long firstSeq, BlockCounts blockCounts,
                       List<String> features) {
            this(protocol, session, application, blockSize, requestCount, cacheBlocks, horizonsMillis, firstSeq,
                    blockCounts, features, Optional.empty(), Optional.empty(), Optional.empty());
        }

        /** A welcome without optional features. */
        public Welcome(int protocol, String session, String application, int blockSize, int requestCount,
                       int cacheBlocks, List<Long> horizonsMillis, long firstSeq, BlockCounts blockCounts) {
            this(protocol, session, application, blockSize, requestCount, cacheBlocks, horizonsMillis, firstSeq,
                    blockCounts, List.of());
        }

        /** Validates the fields and copies the horizons and features. */
        public Welcome {
            features = checkFeatures(features);
            Objects.requireNonNull(resumeToken, "resumeToken");
            resumeToken.ifPresent(t -> Fields.checkString("resumeToken", t, 1, Protocol.MAX_RESUME_TOKEN_LENGTH));
            Objects.requireNonNull(resumed, "resumed");
            Objects.requireNonNull(resumeRefused, "resumeRefused");
            resumeRefused.ifPresent(c -> Fields.checkString("resumeRefused", c, 1, Protocol.MAX_ERROR_CODE_LENGTH));
            if (resumeRefused.isPresent() && !resumed.equals(Optional.of(false))) {
                throw Fields.invalid("resumeRefused requires resumed false");
            }
            Fields.checkMin("protocol", protocol, 1);
            Fields.checkString("session", session, 1, Protocol.MAX_SESSION_ID_LENGTH);
            Fields.checkString("application", application, 1, Protocol.MAX_APPLICATION_LENGTH);
            Fields.checkMin("blockSize", blockSize, 1);
            Fields.checkMin("requestCount", requestCount, 1);
            Fields.checkMin("cacheBlocks", cacheBlocks, 1);
            Fields.checkMin("firstSeq", firstSeq, 0);
            horizonsMillis = List.copyOf(horizonsMillis);
            if (horizonsMillis.isEmpty()) {
                throw Fields.invalid("horizons must have at least one entry");
            }
            for (int j = 0; j < horizonsMillis.size(); j++) {
                long h = horizonsMillis.get(j);
                if (h < 0) {
                    throw Fields.invalid("horizons[" + j + "] must be >= 0, was " + h);
                }
                if (j > 0 && h <= horizonsMillis.get(j - 1)) {
                    throw Fields.invalid("horizons must be strictly increasing, but horizons[" + j + "] = " + h
                            + " <= horizons[" + (j - 1) + "] = " + horizonsMillis.get(j - 1));
                }
            }
            Objects.requireNonNull(blockCounts, "blockCounts");
            if (blockCounts.exceptionCount() > 0) {
                int last = blockCounts.exceptionId(blockCounts.exceptionCount() - 1);
                if (last >= requestCount) {
                    throw Fields.invalid("blockCounts.exceptions: request id " + last + " out of range [0, "
                            + requestCount + ")");
                }
            }
            if (blockCounts.lazyRangeCount() > 0) {
                int last = blockCounts.lazyLast(blockCounts.lazyRangeCount() - 1);
                if (last >= requestCount) {
                    throw Fields.invalid("blockCounts.lazy: request id " + last + " out of range [0, "
                            + requestCount + ")");
                }
            }
        }

        /** Whether the session offers {@code feature}, e.g. {@link Protocol#FEATURE_SCOPE}. */
        public boolean supports(String feature) {
            return features.contains(feature);
        }

        /** Whether this welcome continues an earlier session (the hello's resume was accepted). */
        public boolean isResumed() {
            return resumed.orElse(false);
        }

        @Override
        public String toString() {
            // The resume token is a credential: never print it.
            return "Welcome[protocol=" + protocol + ", session=" + session + ", application=" + application
                    + ", blockSize=" + blockSize + ", requestCount=" + requestCount + ", cacheBlocks=" + cacheBlocks
                    + ", horizons=" + horizonsMillis + ", firstSeq=" + firstSeq + ", features=" + features
                    + ", resumeToken=" + (resumeToken.isPresent() ? "<present>" : "<absent>")
                    + ", resumed=" + resumed.map(String::valueOf).orElse("<absent>")
                    + resumeRefused.map(c -> ", resumeRefused=" + c).orElse("") + "]";
        }

        /** The horizons as an array. */
        public long[] horizonsArray() {
            return horizonsMillis.stream().mapToLong(Long::longValue).toArray();
        }

        @Override
        public String type() {
            return "welcome";
        }

        @Override
        public boolean fromClient() {
            return false;
        }
    }

    /**
     * Request ids whose meaning changed for this session: from now on, a block of request
     * {@code requestIds[k]} answers the current binding only if its frame carries generation
     * {@code generations[k]}; the client drops the blocks of those requests it holds and ignores
     * block frames of any other generation for them. Generation 0 is a request id's default
     * meaning. Sent before any block of the new generations.
     *
     * @param requestIds  the rebound requests, {@code >= 0}, strictly ascending, 1 to
     *                    {@value Protocol#MAX_REBIND_PAIRS} of them
     * @param generations each request's new generation, {@code >= 0}
     */
    record Rebind(int[] requestIds, int[] generations) implements ControlMessage {
        /** Validates and copies the fields. */
        public Rebind {
            requestIds = requestIds.clone();
            generations = generations.clone();
            if (requestIds.length != generations.length) {
                throw Fields.invalid("rebind has " + requestIds.length + " requests but " + generations.length
                        + " generations");
            }
            if (requestIds.length < 1 || requestIds.length > Protocol.MAX_REBIND_PAIRS) {
                throw Fields.invalid("rebind must list 1 to " + Protocol.MAX_REBIND_PAIRS + " requests, listed "
                        + requestIds.length);
            }
            for (int k = 0; k < requestIds.length; k++) {
                Fields.checkMin("requests[" + k + "][0]", requestIds[k], k == 0 ? 0 : requestIds[k - 1] + 1L);
                Fields.checkMin("requests[" + k + "][1]", generations[k], 0);
            }
        }

        /** The rebound request ids, ascending (a copy). */
        @Override
        public int[] requestIds() {
            return requestIds.clone();
        }

        /** The new generation of each rebound request (a copy). */
        @Override
        public int[] generations() {
            return generations.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Rebind r && java.util.Arrays.equals(requestIds, r.requestIds)
                    && java.util.Arrays.equals(generations, r.generations);
        }

        @Override
        public int hashCode() {
            return 31 * java.util.Arrays.hashCode(requestIds) + java.util.Arrays.hashCode(generations);
        }

        @Override
        public String toString() {
            return "Rebind[" + requestIds.length + " requests, first " + requestIds[0] + " -> generation "
                    + generations[0] + "]";
        }

        @Override
        public String type() {
            return "rebind";
        }

        @Override
        public boolean fromClient() {
            return false;
        }
    }

    /**
     * An error, sent by the server just before it closes the connection with
     * {@link ErrorCode#closeStatus()}.
     *
     * @param code    the wire code, 1 to {@value Protocol#MAX_ERROR_CODE_LENGTH} characters (codes
     *                this version does not know are allowed: see {@link #knownCode()})
     * @param message human-readable text, at most {@value Protocol#MAX_ERROR_MESSAGE_LENGTH} characters
     */
    record ErrorMessage(String code, String message) implements ControlMessage {
        /** Validates the fields. */
        public ErrorMessage {
            Fields.checkString("code", code, 1, Protocol.MAX_ERROR_CODE_LENGTH);
            Fields.checkString("message", message, 0, Protocol.MAX_ERROR_MESSAGE_LENGTH);
        }

        /** An error with {@code code}, its {@code message} cut to the maximum length. */
        public static ErrorMessage of(ErrorCode code, String message) {
            String text = message == null ? "" : message;
            if (text.length() > Protocol.MAX_ERROR_MESSAGE_LENGTH) {
                text = text.substring(0, Protocol.MAX_ERROR_MESSAGE_LENGTH - 3) + "...";
            }
            return new ErrorMessage(code.wireName(), text);
        }

        /** The code as an {@link ErrorCode}, or empty if this version does not know it. */
        public Optional<ErrorCode> knownCode() {
            return ErrorCode.fromWireName(code);
        }

        @Override
        public String type() {
            return "error";
        }

        @Override
        public boolean fromClient() {
            return false;
        }
    }
}
