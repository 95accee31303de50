package dev.khameleon.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A block's bytes on disk do not match the CRC32C recorded for it at import time: the file was
 * damaged after it was written. Fetches of that block fail with this exception; other blocks are
 * unaffected.
 */
public final class BlockCorruptedException extends IOException {
    private final transient Path file;
    private final int requestId;
    private final int blockIndex;
    private final long fileOffset;

    BlockCorruptedException(Path file, int requestId, int blockIndex, long fileOffset, int expectedCrc, int actualCrc) {
        super(String.format("corrupt block: request %d block %d in %s at offset %d has CRC32C %08x, expected %08x",
                requestId, blockIndex, file, fileOffset, actualCrc, expectedCrc));
        this.file = file;
        this.requestId = requestId;
        this.blockIndex = blockIndex;
        this.fileOffset = fileOffset;
    }

    /** The segment file holding the damaged block. */
    public Path file() {
        return file;
    }

    /** The request whose block is damaged. */
    public int requestId() {
        return requestId;
    }

    /** The index of the damaged block within its response. */
    public int blockIndex() {
        return blockIndex;
    }

    /** The byte offset of the damaged block in {@link #file()}. */
    public long fileOffset() {
        return fileOffset;
    }
}
