package dev.khameleon.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeldJsonTest {
    /** The state of a client message, as the codec decodes it. */
    private static JsonNode stateOf(String stateJson) {
        ControlMessage m = ControlCodec.decodeFromClient("{\"type\":\"state\",\"time\":1,\"state\":" + stateJson + "}");
        return ((ControlMessage.PredictionState) m).state();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"x\": 512.5, \"y\": -0.0, \"horizons\": [50, 150], \"mean\": [[1e300, 4.9e-324], [2, 3]], \"rest\": 9007199254740993}",
        "{\"s\": \"quote \\\" backslash \\\\ tab \\t é \\u0000 \\ud83d\\ude00\", \"n\": null, \"t\": true, \"e\": {}, \"a\": []}",
        "[1, 2.5, \"three\", [4], {\"five\": 5}]",
        "\"just a string\"",
        "12345678901234567890123456789012345678901234567890",
        "{}"})
    void tree_isTheValueTheCodecDecoded(String stateJson) {
        JsonNode value = stateOf(stateJson);
        HeldJson held = HeldJson.of(value, ErrorCode.INVALID_STATE);
        assertEquals(value, held.tree());
        assertTrue(held.text().length() <= stateJson.length(), "compact: " + held.text());
    }

    /** The codec's limits hold for a message; a state inside one is one level less deep and passes again. */
    @Test
    void deepestAndLongestValuesTheCodecAccepts_areHeldAndReadAgain() {
        String deep = "[".repeat(998) + "]".repeat(998);
        String longNumber = "9".repeat(1000);
        for (String s : new String[] {deep, "[" + longNumber + "]", "\"" + "x".repeat(60_000) + "\""}) {
            JsonNode value = stateOf(s);
            assertEquals(value, HeldJson.of(value, ErrorCode.INVALID_STATE).tree());
        }
    }

    /** Held as text, a state of many small containers costs about its message's bytes, not an object per container. */
    @Test
    void aStateOfManyEmptyContainers_isHeldAsTextNoLongerThanItsMessage() {
        String junk = "[" + "[],".repeat(16_000) + "[]]";
        HeldJson held = HeldJson.of(stateOf(junk), ErrorCode.INVALID_STATE);
        assertEquals(junk, held.text());
    }

    @Test
    void textThatDoesNotParse_failsWithTheHeldCode() {
        ProtocolException e = assertThrows(ProtocolException.class,
                () -> new HeldJson("{\"a\": 1, \"a\": 2}", ErrorCode.INVALID_SCOPE).tree());
        assertEquals(ErrorCode.INVALID_SCOPE, e.code());
    }
}
