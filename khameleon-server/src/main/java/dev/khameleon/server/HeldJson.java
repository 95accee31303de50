package dev.khameleon.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.ProtocolException;

/**
 * A client's state or scope while it waits to be planned, held as its compact JSON text rather
 * than as Jackson's tree: a tree holds an object per value, many times the text's bytes for a
 * state of small containers (two bytes of text, {@code []}, are a whole node), and a session holds
 * up to three states and three scopes (pending, queued, being planned), so trees would let one
 * client keep many times {@code maxFramePayloadBytes}. The tree is rebuilt by the scheduler job that plans it, so only
 * the jobs running at the moment hold trees. Immutable.
 *
 * @param text the value's compact JSON text, at most about as long as the message it came in
 * @param code the error to close with should the text not parse again (it always does: it was
 *             written from a tree the codec accepted, within the same parser limits)
 */
record HeldJson(String text, ErrorCode code) {
    /** Holds {@code value}, which the codec decoded, as text; on the event loop. */
    static HeldJson of(JsonNode value, ErrorCode code) {
        try {
            return new HeldJson(ControlCodec.mapper().writeValueAsString(value), code);
        } catch (JsonProcessingException e) {
            throw new ProtocolException(code, "cannot hold the value: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * The value as a tree again; on a scheduler thread.
     *
     * @throws ProtocolException with {@link #code} if the text does not parse
     */
    JsonNode tree() {
        try {
            return ControlCodec.mapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new ProtocolException(code, "cannot read the held value again: " + e.getOriginalMessage(), e);
        }
    }
}
