package dev.khameleon.core.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Encodes and decodes the protocol's JSON control messages ({@code docs/protocol.md}, section 3).
 *
 * <p>Decoding is strict: every field is checked for presence, JSON type and range, and any
 * violation is a {@link ProtocolException} whose {@link ProtocolException#code() code} is the error
 * to send back ({@code malformed_json}, {@code unknown_type} or {@code invalid_message}; for a
 * {@code state} holding a number beyond the double range, {@code invalid_state}) and whose
 * message names the field and the bad value. Unknown fields are ignored, as the specification
 * requires. Stateless and thread-safe.
 */
public final class ControlCodec {
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private ControlCodec() {
    }

    /** The JSON mapper the codec uses; thread-safe, configured for strict reading. */
    public static JsonMapper mapper() {
        return MAPPER;
    }

    /** Encodes {@code message} as the text of one WebSocket text frame. */
    public static String encode(ControlMessage message) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("type", message.type());
        if (message instanceof ControlMessage.Hello h) {
            o.put("protocol", h.protocol());
            o.put("application", h.application());
            o.put("cacheBlocks", h.cacheBlocks());
            h.token().ifPresent(t -> o.put("token", t));
            if (!h.features().isEmpty()) {
                ArrayNode features = o.putArray("features");
                h.features().forEach(features::add);
            }
            h.resume().ifPresent(r -> {
                ObjectNode resume = o.putObject("resume");
                resume.put("token", r.token());
                resume.put("nextSeq", r.nextSeq());
                putManifest(resume, r.manifest());
                if (r.parts() > 0) {
                    resume.put("parts", r.parts());
                }
            });
        } else if (message instanceof ControlMessage.ResumePart p) {
            putManifest(o, p.manifest());
        } else if (message instanceof ControlMessage.ResumeToken t) {
            o.put("token", t.token());
        } else if (message instanceof ControlMessage.PredictionState s) {
            o.put("time", s.timeMillis());
            o.set("state", s.state());
        } else if (message instanceof ControlMessage.RateReport r) {
            o.put("time", r.timeMillis());
            o.put("bytesPerSecond", r.bytesPerSecond());
            if (r.hasNextSeq()) {
                o.put("nextSeq", r.nextSeq());
            }
        } else if (message instanceof ControlMessage.RequestEvent r) {
            o.put("time", r.timeMillis());
            o.put("request", r.requestId());
            if (r.miss()) {
                o.put("miss", true);
            }
        } else if (message instanceof ControlMessage.Scope s) {
            o.set("scope", s.scope());
        } else if (message instanceof ControlMessage.Welcome w) {
            putWelcome(o, w);
        } else if (message instanceof ControlMessage.Rebind r) {
            ArrayNode pairs = o.putArray("requests");
            int[] ids = r.requestIds();
            int[] generations = r.generations();
            for (int k = 0; k < ids.length; k++) {
                pairs.addArray().add(ids[k]).add(generations[k]);
            }
        } else if (message instanceof ControlMessage.ErrorMessage e) {
            o.put("code", e.code());
            o.put("message", e.message());
        }
        // Bye carries its type only.
        try {
            return MAPPER.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot serialise a JSON tree", e);
        }
    }

    private static void putManifest(ObjectNode o, List<ManifestRun> manifest) {
        ArrayNode runs = o.putArray("manifest");
        for (ManifestRun r : manifest) {
            runs.addArray().add(r.requestId()).add(r.firstBlock()).add(r.count());
        }
    }

    private static void putWelcome(ObjectNode o, ControlMessage.Welcome w) {
        o.put("protocol", w.protocol());
        o.put("session", w.session());
        o.put("application", w.application());
        o.put("blockSize", w.blockSize());
        o.put("requestCount", w.requestCount());
        o.put("cacheBlocks", w.cacheBlocks());
        ArrayNode horizons = o.putArray("horizons");
        w.horizonsMillis().forEach(horizons::add);
        o.put("firstSeq", w.firstSeq());
        ObjectNode counts = o.putObject("blockCounts");
        BlockCounts bc = w.blockCounts();
        counts.put("default", bc.defaultCount());
        ArrayNode exceptions = counts.putArray("exceptions");
        for (int k = 0; k < bc.exceptionCount(); k++) {
            exceptions.addArray().add(bc.exceptionId(k)).add(bc.exceptionBlockCount(k));
        }
        counts.put("complete", bc.complete());
        if (bc.lazyRangeCount() > 0) {
            ArrayNode lazy = counts.putArray("lazy");
            for (int k = 0; k < bc.lazyRangeCount(); k++) {
                lazy.addArray().add(bc.lazyFirst(k)).add(bc.lazyLast(k));
            }
        }
        if (!w.features().isEmpty()) {
            ArrayNode features = o.putArray("features");
            w.features().forEach(features::add);
        }
        w.resumeToken().ifPresent(t -> o.put("resumeToken", t));
        w.resumed().ifPresent(r -> o.put("resumed", r));
        w.resumeRefused().ifPresent(c -> o.put("resumeRefused", c));
    }

    /**
     * Decodes a message a client may send (hello, resumePart, state, rate, request, scope, bye).
     *
     * @throws ProtocolException {@code malformed_json}, {@code unknown_type} (also for server
     *     message types), {@code invalid_message} or, for a state or scope holding a number beyond
     *     the double range, {@code invalid_state} or {@code invalid_scope}
     */
    public static ControlMessage decodeFromClient(String text) {
        return decode(text, Side.CLIENT);
    }

    /**
     * Decodes a message a server may send (welcome, resumeToken, rebind, error).
     *
     * @throws ProtocolException {@code malformed_json}, {@code unknown_type} (also for client
     *     message types) or {@code invalid_message}
     */
    public static ControlMessage decodeFromServer(String text) {
        return decode(text, Side.SERVER);
    }

    /** Which side sent a message, when the decoder knows. */
    private enum Side { CLIENT, SERVER, ANY }

    private static final java.util.Set<String> CLIENT_TYPES = java.util.Set.of("hello", "state", "rate", "request", "scope",
            "bye", "resumePart");
    private static final java.util.Set<String> SERVER_TYPES = java.util.Set.of("welcome", "rebind", "error",
            "resumeToken");

    /**
     * Decodes any control message.
     *
     * @throws ProtocolException {@code malformed_json} if {@code text} is not one JSON object,
     *     {@code unknown_type} if its type is missing or unknown, {@code invalid_message} if a field
     *     is missing, mistyped or out of range, {@code invalid_state} if a state holds a number
     *     beyond the double range
     */
    public static ControlMessage decode(String text) {
        return decode(text, Side.ANY);
    }

    private static ControlMessage decode(String text, Side side) {
        JsonNode root;
        try {
            root = MAPPER.readTree(text);
        } catch (IOException e) {
            throw new ProtocolException(ErrorCode.MALFORMED_JSON, "not valid JSON: " + firstLine(e.getMessage()), e);
        }
        if (root == null || !root.isObject()) {
            throw new ProtocolException(ErrorCode.MALFORMED_JSON, "a control message must be a JSON object, was "
                    + (root == null || root.isMissingNode() ? "empty" : root.getNodeType().toString().toLowerCase()));
        }
        JsonNode type = root.get("type");
        if (type == null || !type.isTextual()) {
            throw new ProtocolException(ErrorCode.UNKNOWN_TYPE, "field \"type\" must be a string, was "
                    + (type == null ? "missing" : type.toString()));
        }
        if (side == Side.CLIENT && SERVER_TYPES.contains(type.textValue())) {
            throw new ProtocolException(ErrorCode.UNKNOWN_TYPE,
                    "message type \"" + type.textValue() + "\" is sent by servers, not clients");
        }
        if (side == Side.SERVER && CLIENT_TYPES.contains(type.textValue())) {
            throw new ProtocolException(ErrorCode.UNKNOWN_TYPE,
                    "message type \"" + type.textValue() + "\" is sent by clients, not servers");
        }
        return switch (type.textValue()) {
            case "hello" -> new ControlMessage.Hello(intField(root, "protocol"),
                    stringField(root, "application"), intField(root, "cacheBlocks"), optionalString(root, "token"),
                    features(root), resume(root));
            case "resumePart" -> new ControlMessage.ResumePart(manifest(root));
            case "resumeToken" -> new ControlMessage.ResumeToken(stringField(root, "token"));
            case "state" -> {
                JsonNode state = root.get("state");
                if (state == null) {
                    throw Fields.invalid("field \"state\" is required");
                }
                requireFiniteNumbers(state, ErrorCode.INVALID_STATE);
                yield new ControlMessage.PredictionState(longField(root, "time"), state);
            }
            case "scope" -> {
                JsonNode scope = required(root, "scope");
                requireFiniteNumbers(scope, ErrorCode.INVALID_SCOPE);
                yield new ControlMessage.Scope(scope);
            }
            case "rebind" -> rebind(root);
            case "rate" -> new ControlMessage.RateReport(longField(root, "time"), doubleField(root, "bytesPerSecond"),
                    optionalSeq(root, "nextSeq"));
            case "request" -> new ControlMessage.RequestEvent(longField(root, "time"), intField(root, "request"),
                    optionalBoolean(root, "miss").orElse(false));
            case "bye" -> new ControlMessage.Bye();
            case "welcome" -> welcome(root);
            case "error" -> new ControlMessage.ErrorMessage(stringField(root, "code"), stringField(root, "message"));
            default -> throw new ProtocolException(ErrorCode.UNKNOWN_TYPE,
                    "unknown message type \"" + abbreviate(type.textValue()) + "\"");
        };
    }

    private static ControlMessage.Welcome welcome(JsonNode root) {
        JsonNode horizonsNode = required(root, "horizons");
        if (!horizonsNode.isArray()) {
            throw Fields.invalid("field \"horizons\" must be an array, was " + abbreviate(horizonsNode.toString()));
        }
        List<Long> horizons = new ArrayList<>(horizonsNode.size());
        for (int j = 0; j < horizonsNode.size(); j++) {
            horizons.add(asLong("horizons[" + j + "]", horizonsNode.get(j)));
        }
        JsonNode countsNode = required(root, "blockCounts");
        if (!countsNode.isObject()) {
            throw Fields.invalid("field \"blockCounts\" must be an object");
        }
        int defaultCount = intField(countsNode, "default");
        JsonNode exceptions = required(countsNode, "exceptions");
        if (!exceptions.isArray()) {
            throw Fields.invalid("field \"blockCounts.exceptions\" must be an array");
        }
        int[][] pairs = intPairs("blockCounts.exceptions", exceptions, "count");
        int[] ids = pairs[0];
        int[] counts = pairs[1];
        JsonNode complete = required(countsNode, "complete");
        if (!complete.isBoolean()) {
            throw Fields.invalid("field \"blockCounts.complete\" must be a boolean, was " + abbreviate(complete.toString()));
        }
        BlockCounts blockCounts = BlockCounts.of(defaultCount, ids, counts, complete.booleanValue());
        JsonNode lazy = countsNode.get("lazy");
        if (lazy != null && !lazy.isNull()) {
            if (!lazy.isArray()) {
                throw Fields.invalid("field \"blockCounts.lazy\" must be an array, was " + abbreviate(lazy.toString()));
            }
            int[][] ranges = intPairs("blockCounts.lazy", lazy, "lastRequestId");
            blockCounts = blockCounts.withLazyRanges(ranges[0], ranges[1]);
        }
        return new ControlMessage.Welcome(intField(root, "protocol"), stringField(root, "session"),
                stringField(root, "application"), intField(root, "blockSize"), intField(root, "requestCount"),
                intField(root, "cacheBlocks"), horizons, longField(root, "firstSeq"), blockCounts, features(root),
                optionalString(root, "resumeToken"), optionalBoolean(root, "resumed"),
                optionalString(root, "resumeRefused"));
    }

    /** The optional {@code resume} object of a hello. */
    private static Optional<ResumeRequest> resume(JsonNode root) {
        JsonNode n = root.get("resume");
        if (n == null || n.isNull()) {
            return Optional.empty();
        }
        if (!n.isObject()) {
            throw Fields.invalid("field \"resume\" must be an object, was " + abbreviate(n.toString()));
        }
        JsonNode parts = n.get("parts");
        return Optional.of(new ResumeRequest(stringField(n, "token"), longField(n, "nextSeq"), manifest(n),
                parts == null || parts.isNull() ? 0 : asInt("resume.parts", parts)));
    }

    /** The {@code manifest} array of {@code [requestId, firstBlock, count]} runs in {@code parent}. */
    private static List<ManifestRun> manifest(JsonNode parent) {
        JsonNode runs = required(parent, "manifest");
        if (!runs.isArray()) {
            throw Fields.invalid("field \"manifest\" must be an array, was " + abbreviate(runs.toString()));
        }
        List<ManifestRun> out = new ArrayList<>(runs.size());
        for (int k = 0; k < runs.size(); k++) {
            JsonNode run = runs.get(k);
            if (!run.isArray() || run.size() != 3) {
                throw Fields.invalid("manifest[" + k + "] must be a [requestId, firstBlock, count] triple, was "
                        + abbreviate(run.toString()));
            }
            out.add(new ManifestRun(asInt("manifest[" + k + "][0]", run.get(0)),
                    asInt("manifest[" + k + "][1]", run.get(1)), asInt("manifest[" + k + "][2]", run.get(2))));
        }
        return out;
    }

    /**
     * The sequence number {@code field} of {@code parent}, {@code >= 0}, or
     * {@link ControlMessage.RateReport#NO_SEQ} when it is missing or null.
     */
    private static long optionalSeq(JsonNode parent, String field) {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) {
            return ControlMessage.RateReport.NO_SEQ;
        }
        long seq = asLong(field, n);
        if (seq < 0) {
            throw Fields.invalid(field + " must be >= 0, was " + seq);
        }
        return seq;
    }

    private static Optional<Boolean> optionalBoolean(JsonNode parent, String field) {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) {
            return Optional.empty();
        }
        if (!n.isBoolean()) {
            throw Fields.invalid("field \"" + field + "\" must be a boolean, was " + abbreviate(n.toString()));
        }
        return Optional.of(n.booleanValue());
    }

    /** The optional {@code features} of a welcome or hello: an array of strings; absent means none. */
    private static List<String> features(JsonNode root) {
        JsonNode n = root.get("features");
        if (n == null || n.isNull()) {
            return List.of();
        }
        if (!n.isArray() || n.size() > Protocol.MAX_FEATURES) {
            throw Fields.invalid("field \"features\" must be an array of at most " + Protocol.MAX_FEATURES
                    + " strings, was " + abbreviate(n.toString()));
        }
        List<String> features = new ArrayList<>(n.size());
        for (int k = 0; k < n.size(); k++) {
            features.add(stringField(n, k, "features[" + k + "]"));
        }
        return features;
    }

    /** The {@code [requestId, value]} pairs of the array {@code field}: the ids, then the values. */
    private static int[][] intPairs(String field, JsonNode array, String valueName) {
        int[] ids = new int[array.size()];
        int[] values = new int[array.size()];
        for (int k = 0; k < ids.length; k++) {
            JsonNode pair = array.get(k);
            if (!pair.isArray() || pair.size() != 2) {
                throw Fields.invalid(field + "[" + k + "] must be a [requestId, " + valueName + "] pair, was "
                        + abbreviate(pair.toString()));
            }
            ids[k] = asInt(field + "[" + k + "][0]", pair.get(0));
            values[k] = asInt(field + "[" + k + "][1]", pair.get(1));
        }
        return new int[][] {ids, values};
    }

    private static ControlMessage.Rebind rebind(JsonNode root) {
        JsonNode pairs = required(root, "requests");
        if (!pairs.isArray()) {
            throw Fields.invalid("field \"requests\" must be an array, was " + abbreviate(pairs.toString()));
        }
        if (pairs.size() > Protocol.MAX_REBIND_PAIRS) {
            throw Fields.invalid("field \"requests\" lists more than " + Protocol.MAX_REBIND_PAIRS + " requests");
        }
        int[][] read = intPairs("requests", pairs, "generation");
        return new ControlMessage.Rebind(read[0], read[1]);
    }

    /**
     * Refuses a state or scope holding a number beyond the double range (e.g. {@code 1e400}) as
     * {@code code}: the parser reads it as infinity, which no predictor can use and
     * which would not survive re-encoding.
     */
    private static void requireFiniteNumbers(JsonNode value, ErrorCode code) {
        java.util.ArrayDeque<JsonNode> todo = new java.util.ArrayDeque<>();
        todo.push(value);
        while (!todo.isEmpty()) {
            JsonNode n = todo.pop();
            if (n.isFloatingPointNumber() && !Double.isFinite(n.doubleValue())) {
                throw new ProtocolException(code, "the " + (code == ErrorCode.INVALID_STATE ? "state" : "scope")
                        + " holds a number outside the double range");
            }
            if (n.isContainerNode()) {
                n.forEach(todo::push);
            }
        }
    }

    private static JsonNode required(JsonNode parent, String field) {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) {
            throw Fields.invalid("field \"" + field + "\" is required");
        }
        return n;
    }

    private static int intField(JsonNode parent, String field) {
        return asInt(field, required(parent, field));
    }

    private static long longField(JsonNode parent, String field) {
        return asLong(field, required(parent, field));
    }

    private static int asInt(String field, JsonNode n) {
        if (!n.isIntegralNumber() || !n.canConvertToInt()) {
            throw Fields.invalid("field \"" + field + "\" must be a 32-bit integer, was " + abbreviate(n.toString()));
        }
        return n.intValue();
    }

    private static long asLong(String field, JsonNode n) {
        if (!n.isIntegralNumber() || !n.canConvertToLong()) {
            throw Fields.invalid("field \"" + field + "\" must be a 64-bit integer, was " + abbreviate(n.toString()));
        }
        return n.longValue();
    }

    private static double doubleField(JsonNode parent, String field) {
        JsonNode n = required(parent, field);
        if (!n.isNumber()) {
            throw Fields.invalid("field \"" + field + "\" must be a number, was " + abbreviate(n.toString()));
        }
        double v = n.doubleValue();
        if (!Double.isFinite(v)) {
            throw Fields.invalid("field \"" + field + "\" must be finite, was " + abbreviate(n.toString()));
        }
        return v;
    }

    private static String stringField(JsonNode parent, String field) {
        JsonNode n = required(parent, field);
        if (!n.isTextual()) {
            throw Fields.invalid("field \"" + field + "\" must be a string, was " + abbreviate(n.toString()));
        }
        return n.textValue();
    }

    private static String stringField(JsonNode array, int k, String field) {
        JsonNode n = array.get(k);
        if (!n.isTextual()) {
            throw Fields.invalid("field \"" + field + "\" must be a string, was " + abbreviate(n.toString()));
        }
        return n.textValue();
    }

    private static Optional<String> optionalString(JsonNode parent, String field) {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) {
            return Optional.empty();
        }
        if (!n.isTextual()) {
            throw Fields.invalid("field \"" + field + "\" must be a string");
        }
        return Optional.of(n.textValue());
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 61) + "...";
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return abbreviate(nl < 0 ? s : s.substring(0, nl));
    }
}
