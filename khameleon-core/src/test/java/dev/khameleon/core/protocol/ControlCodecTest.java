package dev.khameleon.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ControlCodecTest {

    private static JsonNode json(String text) {
        try {
            return ControlCodec.mapper().readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static Stream<ControlMessage> messages() {
        return Stream.of(
                new ControlMessage.Hello(1, "gallery", 5000, Optional.of("s3cr3t")),
                ControlMessage.Hello.of("histograms", 1),
                new ControlMessage.PredictionState(1_717_000_000_123L, json("{\"request\":17}")),
                new ControlMessage.PredictionState(0, json("[1,2,{\"a\":null}]")),
                new ControlMessage.RateReport(5, 1_250_000.5),
                new ControlMessage.RateReport(5, 0),
                new ControlMessage.RateReport(5, 1_250_000.5, 0),
                new ControlMessage.RateReport(5, 0, ResumeRequest.MAX_NEXT_SEQ),
                new ControlMessage.RequestEvent(7, 17),
                new ControlMessage.RequestEvent(7, 17, true),
                new ControlMessage.Bye(),
                new ControlMessage.Welcome(1, "6f1c2a9e", "gallery", 4096, 10_000, 5000, List.of(50L, 150L, 250L, 500L),
                        0, BlockCounts.of(8, new int[] {17, 512}, new int[] {3, 12}, true)),
                ControlMessage.ErrorMessage.of(ErrorCode.INVALID_STATE, "probability -0.5"),
                new ControlMessage.Scope(json("{\"brushes\":[[0,10,20]]}")),
                new ControlMessage.Rebind(new int[] {3, 9, 40}, new int[] {2, 2, 0}),
                new ControlMessage.Welcome(1, "s", "histograms", 64, 100, 50, List.of(50L), 0,
                        BlockCounts.of(1, new int[0], new int[0], true), List.of(Protocol.FEATURE_SCOPE)),
                new ControlMessage.Welcome(1, "s", "charts", 512, 100, 50, List.of(50L), 0,
                        BlockCounts.of(16, new int[] {7}, new int[] {2}, true)
                                .withLazyRanges(new int[] {0, 10}, new int[] {5, 99})));
    }

    @Test
    void welcome_lazyRangesAreOptional_andOnlyWrittenWhenPresent() {
        ControlMessage.Welcome w = new ControlMessage.Welcome(1, "s", "a", 1, 2, 1, List.of(50L), 0,
                BlockCounts.uniform(4));
        assertFalse(ControlCodec.encode(w).contains("lazy"), ControlCodec.encode(w));
        ControlMessage.Welcome lazy = (ControlMessage.Welcome) ControlCodec.decodeFromServer(
                "{\"type\":\"welcome\",\"protocol\":1,\"session\":\"s\",\"application\":\"a\",\"blockSize\":1,"
                        + "\"requestCount\":10,\"cacheBlocks\":1,\"horizons\":[50],\"firstSeq\":0,"
                        + "\"blockCounts\":{\"default\":8,\"exceptions\":[],\"complete\":true,\"lazy\":[[0,9]]}}");
        assertTrue(lazy.blockCounts().isBound(9));
    }

    @Test
    void welcome_withoutFeatures_offersNone_andFeaturesAreOnlyWrittenWhenPresent() {
        ControlMessage.Welcome w = new ControlMessage.Welcome(1, "s", "a", 1, 2, 1, List.of(50L), 0,
                BlockCounts.of(1, new int[0], new int[0], true));
        assertFalse(ControlCodec.encode(w).contains("features"), ControlCodec.encode(w));
        assertFalse(((ControlMessage.Welcome) ControlCodec.decode(ControlCodec.encode(w))).supports(Protocol.FEATURE_SCOPE));
    }

    @Test
    void decode_rebindExample() {
        ControlMessage.Rebind r = (ControlMessage.Rebind) ControlCodec.decodeFromServer(
                "{\"type\": \"rebind\", \"requests\": [[17, 3], [18, 3], [40, 0]]}");
        assertArrayEquals(new int[] {17, 18, 40}, r.requestIds());
        assertArrayEquals(new int[] {3, 3, 0}, r.generations());
    }

    /** Regression: {@code 1e400} inside a state decoded as infinity and re-encoded as the string "Infinity". */
    @Test
    void decode_rejectsStateWithNumberBeyondDoubleRange() {
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> ControlCodec.decode("{\"type\":\"state\",\"time\":1,\"state\":{\"cov\":[[1, -1e400]]}}"));
        assertEquals(ErrorCode.INVALID_STATE, e.code());
        assertTrue(e.getMessage().contains("state"), e.getMessage());
        assertEquals(json("{\"x\":1.0E300}"),
                ((ControlMessage.PredictionState) ControlCodec.decode("{\"type\":\"state\",\"time\":1,\"state\":{\"x\":1e300}}"))
                        .state(), "large finite numbers stay valid");
    }

    @ParameterizedTest
    @MethodSource("messages")
    void encodeThenDecode_returnsEqualMessage(ControlMessage m) {
        assertEquals(m, ControlCodec.decode(ControlCodec.encode(m)));
    }

    @ParameterizedTest
    @MethodSource("messages")
    void decodeFromWrongSide_isUnknownType(ControlMessage m) {
        String text = ControlCodec.encode(m);
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> {
                    if (m.fromClient()) {
                        ControlCodec.decodeFromServer(text);
                    } else {
                        ControlCodec.decodeFromClient(text);
                    }
                });
        assertEquals(ErrorCode.UNKNOWN_TYPE, e.code());
    }

    @Test
    void decode_exampleFromSpec() {
        ControlMessage m = ControlCodec.decodeFromClient(
                "{\"type\": \"hello\", \"protocol\": 1, \"application\": \"gallery\", \"cacheBlocks\": 5000, \"token\": \"s3cr3t\"}");
        assertEquals(new ControlMessage.Hello(1, "gallery", 5000, Optional.of("s3cr3t")), m);
        assertFalse(m.toString().contains("s3cr3t"), "toString must not leak the token");
    }

    @Test
    void requestEvent_missIsOptional_writtenOnlyWhenTrue_andMustBeABoolean() {
        assertFalse(ControlCodec.encode(new ControlMessage.RequestEvent(3, 4)).contains("miss"));
        assertTrue(ControlCodec.encode(new ControlMessage.RequestEvent(3, 4, true)).contains("\"miss\":true"));
        assertEquals(new ControlMessage.RequestEvent(3, 4, true),
                ControlCodec.decode("{\"type\":\"request\",\"time\":3,\"request\":4,\"miss\":true}"));
        assertEquals(new ControlMessage.RequestEvent(3, 4, false),
                ControlCodec.decode("{\"type\":\"request\",\"time\":3,\"request\":4,\"miss\":false}"));
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> ControlCodec.decode("{\"type\":\"request\",\"time\":3,\"request\":4,\"miss\":1}"));
        assertTrue(e.getMessage().contains("miss"), e.getMessage());
    }

    @Test
    void decode_ignoresUnknownFields() {
        assertEquals(new ControlMessage.RequestEvent(3, 4),
                ControlCodec.decode("{\"type\":\"request\",\"time\":3,\"request\":4,\"future\":{\"x\":[1]}}"));
    }

    @Test
    void decode_acceptsAnyProtocolNumberSoServerCanReportVersion() {
        ControlMessage.Hello h = (ControlMessage.Hello) ControlCodec.decode(
                "{\"type\":\"hello\",\"protocol\":99,\"application\":\"a\",\"cacheBlocks\":1}");
        assertEquals(99, h.protocol());
    }

    static Stream<Arguments> badMessages() {
        return Stream.of(
                Arguments.of("{", ErrorCode.MALFORMED_JSON),
                Arguments.of("", ErrorCode.MALFORMED_JSON),
                Arguments.of("[1,2]", ErrorCode.MALFORMED_JSON),
                Arguments.of("\"hello\"", ErrorCode.MALFORMED_JSON),
                Arguments.of("{\"type\":\"bye\"} {}", ErrorCode.MALFORMED_JSON),
                Arguments.of("{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":NaN}", ErrorCode.MALFORMED_JSON),
                Arguments.of("{\"type\":\"bye\",\"type\":\"hello\"}", ErrorCode.MALFORMED_JSON),
                Arguments.of("{}", ErrorCode.UNKNOWN_TYPE),
                Arguments.of("{\"type\":3}", ErrorCode.UNKNOWN_TYPE),
                Arguments.of("{\"type\":\"fetch\"}", ErrorCode.UNKNOWN_TYPE),
                Arguments.of("{\"type\":\"hello\",\"application\":\"a\",\"cacheBlocks\":1}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"hello\",\"protocol\":1.0,\"application\":\"a\",\"cacheBlocks\":1}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"hello\",\"protocol\":1,\"application\":\"\",\"cacheBlocks\":1}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"hello\",\"protocol\":1,\"application\":\"a\",\"cacheBlocks\":0}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"hello\",\"protocol\":1,\"application\":\"a\",\"cacheBlocks\":-5}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"hello\",\"protocol\":1,\"application\":\"a\",\"cacheBlocks\":4294967296}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"hello\",\"protocol\":1,\"application\":7,\"cacheBlocks\":1}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"hello\",\"protocol\":1,\"application\":\"a\",\"cacheBlocks\":1,\"token\":5}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"hello\",\"protocol\":1,\"application\":\"" + "x".repeat(257) + "\",\"cacheBlocks\":1}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"state\",\"time\":1}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"state\",\"time\":-1,\"state\":{}}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"state\",\"time\":\"now\",\"state\":{}}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":-1}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":1e400}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":2e12}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":\"fast\"}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":1,\"nextSeq\":-1}",
                        ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":1,\"nextSeq\":9007199254740992}",
                        ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rate\",\"time\":1,\"bytesPerSecond\":1,\"nextSeq\":1.5}",
                        ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"request\",\"time\":1,\"request\":-2}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"request\",\"time\":1}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"welcome\",\"protocol\":1,\"session\":\"s\",\"application\":\"a\",\"blockSize\":1,"
                        + "\"requestCount\":2,\"cacheBlocks\":1,\"horizons\":[50,50],\"firstSeq\":0,"
                        + "\"blockCounts\":{\"default\":1,\"exceptions\":[],\"complete\":true}}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"welcome\",\"protocol\":1,\"session\":\"s\",\"application\":\"a\",\"blockSize\":1,"
                        + "\"requestCount\":2,\"cacheBlocks\":1,\"horizons\":[50],\"firstSeq\":0,"
                        + "\"blockCounts\":{\"default\":1,\"exceptions\":[[2,3]],\"complete\":true}}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"welcome\",\"protocol\":1,\"session\":\"s\",\"application\":\"a\",\"blockSize\":1,"
                        + "\"requestCount\":2,\"cacheBlocks\":1,\"horizons\":[50],\"firstSeq\":0,"
                        + "\"blockCounts\":{\"default\":1,\"exceptions\":[[1,0]],\"complete\":true}}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"welcome\",\"protocol\":1,\"session\":\"s\",\"application\":\"a\",\"blockSize\":1,"
                        + "\"requestCount\":2,\"cacheBlocks\":1,\"horizons\":[50],\"firstSeq\":0,"
                        + "\"blockCounts\":{\"default\":1,\"exceptions\":[],\"complete\":true,\"lazy\":[[0,2]]}}",
                        ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"welcome\",\"protocol\":1,\"session\":\"s\",\"application\":\"a\",\"blockSize\":1,"
                        + "\"requestCount\":2,\"cacheBlocks\":1,\"horizons\":[50],\"firstSeq\":0,"
                        + "\"blockCounts\":{\"default\":1,\"exceptions\":[],\"complete\":true,\"lazy\":{\"a\":1}}}",
                        ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"error\",\"code\":\"\",\"message\":\"m\"}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"scope\"}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"scope\",\"scope\":{\"b\":[1e400]}}", ErrorCode.INVALID_SCOPE),
                Arguments.of("{\"type\":\"rebind\",\"requests\":[]}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rebind\",\"requests\":[[5,1],[5,2]]}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rebind\",\"requests\":[[5,1],[4,2]]}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rebind\",\"requests\":[[5,-1]]}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rebind\",\"requests\":[[5]]}", ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"rebind\",\"requests\":[" + "[1,1],".repeat(4096) + "[9999,1]]}",
                        ErrorCode.INVALID_MESSAGE),
                Arguments.of("{\"type\":\"welcome\",\"protocol\":1,\"session\":\"s\",\"application\":\"a\",\"blockSize\":1,"
                        + "\"requestCount\":2,\"cacheBlocks\":1,\"horizons\":[50],\"firstSeq\":0,"
                        + "\"blockCounts\":{\"default\":1,\"exceptions\":[],\"complete\":true},\"features\":[7]}",
                        ErrorCode.INVALID_MESSAGE));
    }

    @ParameterizedTest
    @MethodSource("badMessages")
    void decode_rejectsBadMessageWithCode(String text, ErrorCode expected) {
        ProtocolException e = assertThrows(ProtocolException.class, () -> ControlCodec.decode(text));
        assertEquals(expected, e.code(), e.getMessage());
        assertFalse(e.getMessage().isBlank());
    }

    @Test
    void decode_invalidMessageNamesTheField() {
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> ControlCodec.decode("{\"type\":\"hello\",\"protocol\":1,\"application\":\"a\",\"cacheBlocks\":-5}"));
        assertTrue(e.getMessage().contains("cacheBlocks"), e.getMessage());
        assertTrue(e.getMessage().contains("-5"), e.getMessage());
    }

    @Test
    void errorMessage_ofCutsLongText() {
        ControlMessage.ErrorMessage m = ControlMessage.ErrorMessage.of(ErrorCode.INTERNAL_ERROR, "x".repeat(5000));
        assertEquals(Protocol.MAX_ERROR_MESSAGE_LENGTH, m.message().length());
        assertEquals(Optional.of(ErrorCode.INTERNAL_ERROR), m.knownCode());
    }

    @Test
    void errorMessage_acceptsUnknownCodeFromNewerServer() {
        ControlMessage m = ControlCodec.decodeFromServer("{\"type\":\"error\",\"code\":\"brand_new\",\"message\":\"m\"}");
        assertEquals(Optional.empty(), assertInstanceOf(ControlMessage.ErrorMessage.class, m).knownCode());
    }

    @Test
    void errorCodes_haveDistinctWireNamesAndValidCloseStatus() {
        assertEquals(ErrorCode.values().length,
                Stream.of(ErrorCode.values()).map(ErrorCode::wireName).distinct().count());
        for (ErrorCode c : ErrorCode.values()) {
            assertTrue(c.closeStatus() >= 1000 && c.closeStatus() <= 1014, c + " " + c.closeStatus());
            assertEquals(Optional.of(c), ErrorCode.fromWireName(c.wireName()));
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void rateReport_randomValidRoundTrips(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 200; i++) {
            ControlMessage.RateReport m = new ControlMessage.RateReport(r.nextLong(0, Long.MAX_VALUE),
                    r.nextDouble(0, Protocol.MAX_BYTES_PER_SECOND));
            assertEquals(m, ControlCodec.decode(ControlCodec.encode(m)));
        }
    }

    @Test
    void rateReport_nextSeqIsOptional_andOnlyWrittenWhenPresent() {
        ControlMessage.RateReport old = (ControlMessage.RateReport) ControlCodec.decode(
                "{\"type\":\"rate\",\"time\":3,\"bytesPerSecond\":10}");
        assertFalse(old.hasNextSeq());
        assertFalse(ControlCodec.encode(old).contains("nextSeq"), ControlCodec.encode(old));
        ControlMessage.RateReport withSeq = (ControlMessage.RateReport) ControlCodec.decode(
                "{\"type\":\"rate\",\"time\":3,\"bytesPerSecond\":10,\"nextSeq\":42}");
        assertEquals(42, withSeq.nextSeq());
        assertTrue(ControlCodec.encode(withSeq).contains("\"nextSeq\":42"), ControlCodec.encode(withSeq));
        assertFalse(((ControlMessage.RateReport) ControlCodec.decode(
                "{\"type\":\"rate\",\"time\":3,\"bytesPerSecond\":10,\"nextSeq\":null}")).hasNextSeq());
    }

    static IntStream seeds() {
        return IntStream.of(1, 2, 3);
    }
}
