package dev.khameleon.core;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One fixed-size block of a progressively encoded response: block {@code index} of the
 * {@code count} blocks of request {@code requestId}.
 *
 * <p>A block is immutable. Its payload is the block's full fixed-size byte content; the last
 * {@code padding} bytes of it are padding, so {@link #content()} is the part that belongs to the
 * response and a response's bytes are the concatenation of its blocks' contents. Usually only
 * the last block is padded; an encoder may also pad a block to end it at a boundary of its
 * format (the progressive JPEG encoder ends its first block with the DC scan).
 */
public final class Block {
    private final int requestId;
    private final int index;
    private final int count;
    private final byte[] payload;
    private final int padding;

    private Block(int requestId, int index, int count, byte[] payload, int padding) {
        this.requestId = requestId;
        this.index = index;
        this.count = count;
        this.payload = payload;
        this.padding = padding;
    }

    /**
     * Creates a block, copying {@code payload}.
     *
     * @throws IllegalArgumentException if {@code requestId < 0}, {@code index} is not in
     *     {@code [0, count)}, or {@code padding} is not in {@code [0, payload.length]}
     */
    public static Block of(int requestId, int index, int count, byte[] payload, int padding) {
        return wrap(requestId, index, count, payload.clone(), padding);
    }

    /**
     * Creates a block that takes ownership of {@code payload} without copying it; the caller
     * must not modify the array afterwards. Validates as {@link #of}.
     */
    public static Block wrap(int requestId, int index, int count, byte[] payload, int padding) {
        if (requestId < 0) {
            throw new IllegalArgumentException("requestId must be >= 0, was " + requestId);
        }
        if (count < 1) {
            throw new IllegalArgumentException("block count must be >= 1, was " + count);
        }
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException("block index " + index + " out of range [0, " + count + ")");
        }
        if (padding < 0 || padding > payload.length) {
            throw new IllegalArgumentException(
                    "padding " + padding + " out of range [0, " + payload.length + "]");
        }
        return new Block(requestId, index, count, payload, padding);
    }

    /** The id of the request this block belongs to, in {@code [0, n)}. */
    public int requestId() {
        return requestId;
    }

    /** This block's position in its response, in {@code [0, count())}. */
    public int index() {
        return index;
    }

    /** How many blocks the whole response has. */
    public int count() {
        return count;
    }

    /** Number of padding bytes at the end of the payload. */
    public int padding() {
        return padding;
    }

    /** The payload's length in bytes, padding included (the application's block size). */
    public int size() {
        return payload.length;
    }

    /** A read-only view of the whole payload, padding included. */
    public ByteBuffer payload() {
        return ByteBuffer.wrap(payload).asReadOnlyBuffer();
    }

    /** A read-only view of the payload without its padding. */
    public ByteBuffer content() {
        return ByteBuffer.wrap(payload, 0, payload.length - padding).slice().asReadOnlyBuffer();
    }

    /** A fresh copy of the payload, padding included. */
    public byte[] payloadBytes() {
        return payload.clone();
    }

    /** Whether this is the last block of its response. */
    public boolean isLast() {
        return index == count - 1;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Block other)) {
            return false;
        }
        return requestId == other.requestId && index == other.index && count == other.count
                && padding == other.padding && Arrays.equals(payload, other.payload);
    }

    @Override
    public int hashCode() {
        return ((requestId * 31 + index) * 31 + count) * 31 + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "Block[request=" + requestId + ", index=" + index + "/" + count
                + ", size=" + payload.length + ", padding=" + padding + "]";
    }
}
