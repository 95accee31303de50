package dev.khameleon.core.spi;

import dev.khameleon.core.Block;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Turns one response into an ordered list of fixed-size blocks such that any prefix renders a
 * lower-quality answer and all blocks render the full answer.
 *
 * <p>Every block an encoder returns has exactly {@link #blockSize()} payload bytes; the last
 * block records its padding. Implementations must be thread-safe: a server encodes many
 * responses concurrently.
 *
 * @param <R> the application's response type
 */
public interface ProgressiveEncoder<R> {

    /** The fixed payload size, in bytes, of every block this encoder produces. */
    int blockSize();

    /**
     * Encodes {@code response} as the blocks of request {@code requestId}, in order.
     *
     * @return at least one block; block {@code i} has index {@code i} and all share one count
     * @throws IllegalArgumentException if the response cannot be encoded
     */
    List<Block> encode(int requestId, R response);

    /**
     * An encoder that makes a single-block response of anything: {@code serializer}'s bytes,
     * padded to {@code blockSize}. For responses that are not progressive, or small.
     *
     * @throws IllegalArgumentException from {@link #encode} when a serialized response is
     *     longer than {@code blockSize}
     */
    static <R> ProgressiveEncoder<R> singleBlock(int blockSize, Function<? super R, byte[]> serializer) {
        checkBlockSize(blockSize);
        Objects.requireNonNull(serializer, "serializer");
        return new ProgressiveEncoder<>() {
            @Override
            public int blockSize() {
                return blockSize;
            }

            @Override
            public List<Block> encode(int requestId, R response) {
                byte[] bytes = serializer.apply(response);
                if (bytes.length > blockSize) {
                    throw new IllegalArgumentException("response of request " + requestId + " is " + bytes.length
                            + " bytes, more than the single block size " + blockSize);
                }
                return split(requestId, bytes, blockSize);
            }

            @Override
            public String toString() {
                return "ProgressiveEncoder.singleBlock(" + blockSize + ")";
            }
        };
    }

    /**
     * An encoder for bytes that are already in progressive order (a progressive JPEG, a
     * sampled-then-refined data set): cuts them into blocks of {@code blockSize}, padding the
     * last.
     */
    static ProgressiveEncoder<byte[]> fixedBlocks(int blockSize) {
        checkBlockSize(blockSize);
        return new ProgressiveEncoder<>() {
            @Override
            public int blockSize() {
                return blockSize;
            }

            @Override
            public List<Block> encode(int requestId, byte[] response) {
                return split(requestId, response, blockSize);
            }

            @Override
            public String toString() {
                return "ProgressiveEncoder.fixedBlocks(" + blockSize + ")";
            }
        };
    }

    /**
     * Cuts {@code bytes} into {@code ceil(len / blockSize)} blocks (at least one) of exactly
     * {@code blockSize} bytes; the last block is zero-padded and records its padding, so no
     * byte of the response is ever dropped.
     */
    static List<Block> split(int requestId, byte[] bytes, int blockSize) {
        checkBlockSize(blockSize);
        int count = Math.max(1, (bytes.length + blockSize - 1) / blockSize);
        List<Block> blocks = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int from = i * blockSize;
            int len = Math.min(blockSize, bytes.length - from);
            byte[] payload = new byte[blockSize];
            System.arraycopy(bytes, from, payload, 0, Math.max(0, len));
            blocks.add(Block.wrap(requestId, i, count, payload, blockSize - Math.max(0, len)));
        }
        return Collections.unmodifiableList(blocks);
    }

    private static void checkBlockSize(int blockSize) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
    }
}
