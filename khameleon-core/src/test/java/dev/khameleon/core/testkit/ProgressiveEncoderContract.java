package dev.khameleon.core.testkit;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every {@link ProgressiveEncoder} promises: fixed-size blocks, numbered in order, none of
 * them only padding, and the same blocks for the same response.
 *
 * @param <R> the response type
 */
public abstract class ProgressiveEncoderContract<R> {

    /** The encoder under test. */
    protected abstract ProgressiveEncoder<R> encoder();

    /** Responses to encode; at least one. */
    protected abstract List<R> sampleResponses();

    @Test
    void encode_yieldsFixedSizeBlocksInOrder() {
        ProgressiveEncoder<R> encoder = encoder();
        List<R> samples = sampleResponses();
        assertFalse(samples.isEmpty(), "sampleResponses() must not be empty");
        int requestId = 17;
        for (R response : samples) {
            List<Block> blocks = encoder.encode(requestId, response);
            assertFalse(blocks.isEmpty(), "a response has at least one block");
            for (int i = 0; i < blocks.size(); i++) {
                Block b = blocks.get(i);
                assertEquals(requestId, b.requestId());
                assertEquals(i, b.index());
                assertEquals(blocks.size(), b.count());
                assertEquals(encoder.blockSize(), b.size(), "block " + i + " size");
                assertTrue(b.padding() < encoder.blockSize() || blocks.size() == 1,
                        "block " + i + " is only padding: wasted bandwidth");
            }
        }
    }

    @Test
    void encode_isDeterministic() {
        ProgressiveEncoder<R> encoder = encoder();
        for (R response : sampleResponses()) {
            assertEquals(encoder.encode(3, response), encoder.encode(3, response));
        }
    }
}
