package dev.khameleon.tiers;

import dev.khameleon.core.Block;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32C;

/**
 * The blocks of one response, stored apart from any request id: the form every tier keeps, so a
 * response computed for one request id answers every id bound to the same content key. Immutable.
 *
 * <p>Its wire form ({@link #encode()}), the one value the shared tier holds per response, is
 * {@code magic, contentKey, blockSize, count, paddings[count], payloads[count * blockSize], crc32c}
 * (big-endian); the trailing CRC32C covers everything before it, so a damaged or foreign value is
 * refused by {@link #decode} instead of served.
 */
final class StoredResponse {
    static final int MAGIC = 0x4B485231; // "KHR1"
    private static final int HEADER = 4 + 8 + 4 + 4;

    private final long contentKey;
    private final int blockSize;
    private final int[] paddings;
    private final byte[] payloads;

    private StoredResponse(long contentKey, int blockSize, int[] paddings, byte[] payloads) {
        this.contentKey = contentKey;
        this.blockSize = blockSize;
        this.paddings = paddings;
        this.payloads = payloads;
    }

    /**
     * The response made of {@code blocks}, which must be blocks {@code 0..count-1} of one response,
     * in order, each of {@code blockSize} bytes.
     *
     * @throws IllegalArgumentException naming the first block that does not fit
     */
    static StoredResponse of(long contentKey, int blockSize, List<Block> blocks) {
        int count = blocks.size();
        if (count == 0) {
            throw new IllegalArgumentException("content " + contentKey + ": a response has at least one block");
        }
        int[] paddings = new int[count];
        byte[] payloads = new byte[Math.multiplyExact(count, blockSize)];
        for (int i = 0; i < count; i++) {
            Block b = blocks.get(i);
            if (b.index() != i || b.count() != count || b.size() != blockSize) {
                throw new IllegalArgumentException("content " + contentKey + ": origin answered block " + i + " of "
                        + count + " (" + blockSize + " bytes) with block " + b.index() + " of " + b.count() + " ("
                        + b.size() + " bytes)");
            }
            paddings[i] = b.padding();
            b.payload().get(payloads, i * blockSize, blockSize);
        }
        return new StoredResponse(contentKey, blockSize, paddings, payloads);
    }

    /**
     * The response made of {@code blocks} (see {@link #of}) once every one has completed; fails if any of
     * them fails, or as {@link #of} does.
     */
    static CompletableFuture<StoredResponse> gather(long contentKey, int blockSize,
                                                    List<CompletableFuture<Block>> blocks) {
        return CompletableFuture.allOf(blocks.toArray(CompletableFuture[]::new)).thenApply(x -> {
            List<Block> list = new ArrayList<>(blocks.size());
            for (CompletableFuture<Block> f : blocks) {
                list.add(f.join());
            }
            return of(contentKey, blockSize, list);
        });
    }

    /** The length of the wire form of a response of {@code count} blocks of {@code blockSize} bytes. */
    static long encodedLength(int count, int blockSize) {
        return HEADER + 4L * count + (long) count * blockSize + 4;
    }

    /** How many blocks the response has. */
    int count() {
        return paddings.length;
    }

    /** The block size the response was encoded with. */
    int blockSize() {
        return blockSize;
    }

    /** The content key this response answers. */
    long contentKey() {
        return contentKey;
    }

    /** Bytes this response holds in memory, for the memory tier's bound. */
    int weight() {
        return payloads.length + 4 * paddings.length + 64;
    }

    /** Block {@code index}, labelled with {@code requestId}, the id the client asked for. */
    Block block(int requestId, int index) {
        byte[] p = Arrays.copyOfRange(payloads, index * blockSize, (index + 1) * blockSize);
        return Block.wrap(requestId, index, paddings.length, p, paddings[index]);
    }

    /** The wire form described in the class comment. */
    byte[] encode() {
        int count = paddings.length;
        ByteBuffer buf = ByteBuffer.allocate(HEADER + 4 * count + payloads.length + 4);
        buf.putInt(MAGIC).putLong(contentKey).putInt(blockSize).putInt(count);
        for (int p : paddings) {
            buf.putInt(p);
        }
        buf.put(payloads);
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 0, buf.position());
        buf.putInt((int) crc.getValue());
        return buf.array();
    }

    /**
     * The response in {@code value}, checked to be an intact encoding of {@code contentKey} at
     * {@code blockSize}.
     *
     * @throws CorruptValueException saying what does not match
     */
    static StoredResponse decode(byte[] value, long contentKey, int blockSize) {
        if (value.length < HEADER + 4 + 4) {
            throw new CorruptValueException("value of " + value.length + " bytes is shorter than any response");
        }
        ByteBuffer buf = ByteBuffer.wrap(value);
        CRC32C crc = new CRC32C();
        crc.update(value, 0, value.length - 4);
        if ((int) crc.getValue() != buf.getInt(value.length - 4)) {
            throw new CorruptValueException("checksum mismatch");
        }
        int magic = buf.getInt();
        long key = buf.getLong();
        int size = buf.getInt();
        int count = buf.getInt();
        if (magic != MAGIC) {
            throw new CorruptValueException("not a response (magic " + Integer.toHexString(magic) + ")");
        }
        if (key != contentKey) {
            throw new CorruptValueException("holds content " + key + ", not " + contentKey);
        }
        if (size != blockSize) {
            throw new CorruptValueException("block size " + size + ", expected " + blockSize);
        }
        if (count < 1 || (long) HEADER + 4L * count + (long) count * size + 4 != value.length) {
            throw new CorruptValueException("length " + value.length + " does not fit " + count + " blocks");
        }
        int[] paddings = new int[count];
        for (int i = 0; i < count; i++) {
            paddings[i] = buf.getInt();
            if (paddings[i] < 0 || paddings[i] > size) {
                throw new CorruptValueException("padding " + paddings[i] + " of block " + i + " out of range");
            }
        }
        byte[] payloads = new byte[count * size];
        buf.get(payloads);
        return new StoredResponse(contentKey, blockSize, paddings, payloads);
    }

    /** A stored value that is not an intact response for the key it was read under. */
    static final class CorruptValueException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CorruptValueException(String message) {
            super(message);
        }
    }
}
