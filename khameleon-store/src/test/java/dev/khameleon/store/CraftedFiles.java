package dev.khameleon.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Edits a store's files field by field, the way a crafted file would look: the index keeps a
 * valid trailing CRC32C, so only field validation can catch the edit. Offsets follow the format
 * in {@code docs/file-store.md}.
 */
final class CraftedFiles {
    static final int INDEX_BLOCK_SIZE = 12;
    static final int INDEX_ALIGNMENT = 16;
    static final int INDEX_GENERATION = 20;
    static final int INDEX_COUNT = 28;
    /** The fields of the first entry (response 0). */
    static final int ENTRY0_SEGMENT = 32;
    static final int ENTRY0_OFFSET = 40;
    static final int ENTRY0_BLOCKS = 48;
    static final int ENTRY0_PADDING = 52;

    static final int SEGMENT_VERSION = 8;
    static final int SEGMENT_BLOCK_SIZE = 12;
    static final int SEGMENT_GENERATION = 16;

    private CraftedFiles() {
    }

    /** Rewrites the int at {@code position} of {@code dir}'s index and fixes the index's CRC. */
    static void indexInt(Path dir, int position, int value) throws IOException {
        Path file = dir.resolve(StoreIndex.INDEX_FILE);
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer.wrap(bytes).putInt(position, value);
        Files.write(file, withValidCrc(bytes));
    }

    /** Rewrites the long at {@code position} of {@code dir}'s index and fixes the index's CRC. */
    static void indexLong(Path dir, int position, long value) throws IOException {
        Path file = dir.resolve(StoreIndex.INDEX_FILE);
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer.wrap(bytes).putLong(position, value);
        Files.write(file, withValidCrc(bytes));
    }

    /** {@code bytes} with its last four bytes replaced by the CRC32C of the others (in place). */
    static byte[] withValidCrc(byte[] bytes) {
        if (bytes.length >= 4) {
            CRC32C crc = new CRC32C();
            crc.update(bytes, 0, bytes.length - 4);
            ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
        }
        return bytes;
    }

    /** Rewrites the int at {@code position} of the segment file of generation {@code generation}. */
    static Path segmentInt(Path dir, long generation, int position, int value) throws IOException {
        return segmentBytes(dir, generation, position, ByteBuffer.allocate(4).putInt(0, value));
    }

    /** Rewrites the long at {@code position} of the segment file of generation {@code generation}. */
    static Path segmentLong(Path dir, long generation, int position, long value) throws IOException {
        return segmentBytes(dir, generation, position, ByteBuffer.allocate(8).putLong(0, value));
    }

    private static Path segmentBytes(Path dir, long generation, int position, ByteBuffer bytes) throws IOException {
        Path file = dir.resolve(StoreIndex.segmentName(generation));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(bytes, position);
        }
        return file;
    }
}
