package dev.khameleon.client;

import dev.khameleon.core.Block;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * What an upcall delivers: the usable prefix of a response's blocks (blocks {@code 0..j}, in
 * order) and the utility of that prefix. Immutable.
 *
 * @param requestId  the request answered
 * @param blocks     blocks {@code 0..j} of the response, in order; never empty
 * @param blockCount how many blocks the full response has
 * @param utility    {@code U((j + 1) / blockCount)} under the application's utility function
 */
public record Response(int requestId, List<Block> blocks, int blockCount, double utility) {

    /** Copies {@code blocks} into an immutable list and validates the shape. */
    public Response {
        blocks = List.copyOf(blocks);
        if (blocks.isEmpty() || blocks.size() > blockCount) {
            throw new IllegalArgumentException("a response carries 1.." + blockCount + " blocks, got " + blocks.size());
        }
    }

    /** Whether every block of the response is present: no further upcall will follow. */
    public boolean isComplete() {
        return blocks.size() == blockCount;
    }

    /** The fraction of the response's blocks present, in {@code (0, 1]}. */
    public double fraction() {
        return (double) blocks.size() / blockCount;
    }

    /**
     * The bytes of the prefix: each block's content (its payload without padding) in block order,
     * concatenated — what a progressive decoder reads, the same as khameleon.js's
     * {@code response.bytes}. A fresh array on every call.
     */
    public byte[] content() {
        int length = 0;
        for (Block b : blocks) {
            length += b.content().remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(length);
        for (Block b : blocks) {
            out.put(b.content());
        }
        return out.array();
    }
}
