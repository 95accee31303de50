package dev.khameleon.core.protocol;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The resume fields and messages of the protocol: encoding, decoding and their field rules. */
class ResumeCodecTest {
    private static final List<ManifestRun> RUNS = List.of(new ManifestRun(4, 0, 3), new ManifestRun(-1, 0, 2),
            new ManifestRun(9, 1, 1));

    @Test
    void hello_withResume_roundTrips() {
        ControlMessage.Hello h = new ControlMessage.Hello(1, "gallery", 6, Optional.empty(),
                List.of(Protocol.FEATURE_RESUME), Optional.of(new ResumeRequest("tok", 6, RUNS, 2)));
        String json = ControlCodec.encode(h);
        assertTrue(json.contains("\"manifest\":[[4,0,3],[-1,0,2],[9,1,1]]"), json);
        assertEquals(h, ControlCodec.decodeFromClient(json));
        assertTrue(((ControlMessage.Hello) ControlCodec.decodeFromClient(json)).supports(Protocol.FEATURE_RESUME));
    }

    @Test
    void hello_withoutResume_decodesAsBefore() {
        ControlMessage.Hello h = (ControlMessage.Hello) ControlCodec.decodeFromClient(
                "{\"type\":\"hello\",\"protocol\":1,\"application\":\"a\",\"cacheBlocks\":5}");
        assertEquals(Optional.empty(), h.resume());
        assertEquals(List.of(), h.features());
        assertFalse(ControlCodec.encode(h).contains("resume"), "a hello without resume stays as in version 1");
    }

    @Test
    void resumePart_andResumeToken_roundTrip_onTheirSideOnly() {
        ControlMessage.ResumePart p = new ControlMessage.ResumePart(RUNS);
        assertEquals(p, ControlCodec.decodeFromClient(ControlCodec.encode(p)));
        ControlMessage.ResumeToken t = new ControlMessage.ResumeToken("abc_-");
        assertEquals(t, ControlCodec.decodeFromServer(ControlCodec.encode(t)));
        assertEquals(ErrorCode.UNKNOWN_TYPE, assertThrows(ProtocolException.class,
                () -> ControlCodec.decodeFromClient(ControlCodec.encode(t))).code());
        assertEquals(ErrorCode.UNKNOWN_TYPE, assertThrows(ProtocolException.class,
                () -> ControlCodec.decodeFromServer(ControlCodec.encode(p))).code());
        assertFalse(t.toString().contains("abc"), "a token is a credential: never printed");
    }

    @Test
    void welcome_resumeFields_roundTrip() {
        ControlMessage.Welcome w = new ControlMessage.Welcome(1, "s1", "a", 64, 10, 5, List.of(50L), 17,
                BlockCounts.uniform(2), List.of(Protocol.FEATURE_RESUME), Optional.of("tok"), Optional.of(false),
                Optional.of("expired"));
        ControlMessage decoded = ControlCodec.decodeFromServer(ControlCodec.encode(w));
        assertEquals(w, decoded);
        assertFalse(assertInstanceOf(ControlMessage.Welcome.class, decoded).isResumed());
        assertFalse(w.toString().contains("tok"), "a token is a credential: never printed");
        assertThrows(ProtocolException.class, () -> new ControlMessage.Welcome(1, "s1", "a", 64, 10, 5, List.of(50L),
                17, BlockCounts.uniform(2), List.of(), Optional.empty(), Optional.of(true), Optional.of("expired")),
                "a refusal with resumed true");
    }

    @Test
    void manifest_fieldRules_areInvalidMessage() {
        String[] bad = {
            "[[4,0]]", "[[4,0,0]]", "[[-2,0,1]]", "[[-1,3,1]]", "[[4,-1,1]]", "[[4,0,1.0]]", "{}",
            "[[4,2147483647,2]]"
        };
        for (String m : bad) {
            String json = "{\"type\":\"resumePart\",\"manifest\":" + m + "}";
            assertEquals(ErrorCode.INVALID_MESSAGE, assertThrows(ProtocolException.class,
                    () -> ControlCodec.decodeFromClient(json), m).code(), m);
        }
        assertEquals(ErrorCode.INVALID_MESSAGE, assertThrows(ProtocolException.class,
                () -> ControlCodec.decodeFromClient("{\"type\":\"resumePart\",\"manifest\":[]}")).code(),
                "an empty part");
        assertEquals(ErrorCode.INVALID_MESSAGE, assertThrows(ProtocolException.class,
                () -> ControlCodec.decodeFromClient("{\"type\":\"hello\",\"protocol\":1,\"application\":\"a\","
                        + "\"cacheBlocks\":5,\"resume\":{\"token\":\"\",\"nextSeq\":0,\"manifest\":[]}}")).code(),
                "an empty token");
        assertEquals(ErrorCode.INVALID_MESSAGE, assertThrows(ProtocolException.class,
                () -> ControlCodec.decodeFromClient("{\"type\":\"hello\",\"protocol\":1,\"application\":\"a\","
                        + "\"cacheBlocks\":5,\"resume\":{\"token\":\"t\",\"nextSeq\":-1,\"manifest\":[]}}")).code(),
                "a negative nextSeq");
        assertEquals(ErrorCode.INVALID_MESSAGE, assertThrows(ProtocolException.class,
                () -> ControlCodec.decodeFromClient("{\"type\":\"hello\",\"protocol\":1,\"application\":\"a\","
                        + "\"cacheBlocks\":5,\"resume\":{\"token\":\"t\",\"nextSeq\":9007199254740992,"
                        + "\"manifest\":[]}}")).code(), "nextSeq beyond 2^53 - 1");
    }
}
