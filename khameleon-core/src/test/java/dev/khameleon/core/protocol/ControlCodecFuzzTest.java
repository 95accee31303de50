package dev.khameleon.core.protocol;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes {@link ControlCodec}'s text-frame decoders: any text either decodes to a message that
 * encodes to text decoding to an equal message, or fails with a {@link ProtocolException} carrying one of
 * the decoder's documented codes. Any other exception or error is a finding.
 *
 * <p>{@code mvn verify} replays the seeds in {@code ControlCodecFuzzTestInputs/}; see
 * {@code docs/protocol.md} ("Fuzzing") for the long-run command.
 */
class ControlCodecFuzzTest {
    private static final Set<ErrorCode> DECODER_CODES =
            Set.of(ErrorCode.MALFORMED_JSON, ErrorCode.UNKNOWN_TYPE, ErrorCode.INVALID_MESSAGE, ErrorCode.INVALID_STATE,
                    ErrorCode.INVALID_SCOPE);
    private static final Set<String> CLIENT_TYPES = Set.of("hello", "state", "rate", "request", "scope", "bye",
            "resumePart");

    @FuzzTest(maxDuration = "3m")
    void decode_returnsAStableMessageOrProtocolException(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        ControlMessage any = decodeOrNull(() -> ControlCodec.decode(text));
        ControlMessage fromClient = decodeOrNull(() -> ControlCodec.decodeFromClient(text));
        ControlMessage fromServer = decodeOrNull(() -> ControlCodec.decodeFromServer(text));
        if (any == null) {
            assertTrue(fromClient == null && fromServer == null, "a side-specific decoder accepted what decode refused");
            return;
        }
        boolean clientType = CLIENT_TYPES.contains(any.type());
        assertEquals(clientType, fromClient != null, "decodeFromClient of a " + any.type());
        assertEquals(!clientType, fromServer != null, "decodeFromServer of a " + any.type());
        String encoded = ControlCodec.encode(any);
        ControlMessage again = ControlCodec.decode(encoded);
        assertEquals(any, again, "a decoded message survives encoding: " + encoded);
        assertEquals(encoded, ControlCodec.encode(again), "re-encoding is stable");
        assertEquals(encoded, ControlCodec.encode(clientType ? fromClient : fromServer), "the sides agree");
    }

    private static ControlMessage decodeOrNull(java.util.function.Supplier<ControlMessage> decoder) {
        try {
            ControlMessage m = decoder.get();
            assertNotNull(m, "a decoder returned null");
            return m;
        } catch (ProtocolException e) {
            assertTrue(DECODER_CODES.contains(e.code()), "undocumented code " + e.code() + ": " + e.getMessage());
            assertNotNull(e.getMessage(), "a protocol error without a message");
            return null;
        }
    }
}
