package dev.khameleon.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * The published index of a store: where each response's blocks live and their checksums. The
 * binary format (big-endian) is specified in {@code docs/file-store.md}; this class is its only
 * reader and writer. Immutable.
 */
final class StoreIndex {
    static final String INDEX_FILE = "index";
    static final String INDEX_TEMP = "index.tmp";
    static final String LOCK_FILE = "lock";
    static final int ALIGNMENT = 4096;
    static final int VERSION = 1;
    static final byte[] INDEX_MAGIC = "KHSTIDX1".getBytes(StandardCharsets.US_ASCII);
    static final byte[] SEGMENT_MAGIC = "KHSTSEG1".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER_BYTES = 8 + 4 + 4 + 4 + 8 + 4;
    private static final int ENTRY_FIXED_BYTES = 8 + 8 + 4 + 4;

    /** Where one response lives: {@code count} blocks from {@code offset} in segment {@code generation}. */
    record Entry(long segment, long offset, int count, int lastPadding, int[] crcs) {
    }

    final long generation;
    final int blockSize;
    private final Entry[] entries;

    StoreIndex(long generation, int blockSize, Entry[] entries) {
        this.generation = generation;
        this.blockSize = blockSize;
        this.entries = entries;
    }

    static String segmentName(long generation) {
        return String.format(Locale.ROOT, "segment-%08d.dat", generation);
    }

    /** The generation encoded in a segment file name, or -1 if {@code name} is not one. */
    static long segmentGeneration(String name) {
        if (!name.startsWith("segment-") || !name.endsWith(".dat")) {
            return -1;
        }
        try {
            return Long.parseLong(name.substring("segment-".length(), name.length() - ".dat".length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    static long alignUp(long value) {
        return (value + ALIGNMENT - 1) & -(long) ALIGNMENT;
    }

    static long alignDown(long value) {
        return value & -(long) ALIGNMENT;
    }

    int size() {
        return entries.length;
    }

    Entry entry(int requestId) {
        return entries[requestId];
    }

    Entry[] entries() {
        return entries.clone();
    }

    /** The distinct segment generations referenced, ascending. */
    long[] segments() {
        return Arrays.stream(entries).mapToLong(Entry::segment).distinct().sorted().toArray();
    }

    /**
     * Reads and validates the published index of {@code dir}.
     *
     * @throws NoSuchFileException if no index was ever published there
     * @throws IOException if the index is damaged, naming the file and what is wrong
     */
    static StoreIndex read(Path dir) throws IOException {
        Path file = dir.resolve(INDEX_FILE);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null,
                    "no published store index (was an import ever committed in " + dir + "?)");
        }
        if (bytes.length < HEADER_BYTES + 4) {
            throw new IOException("store index " + file + " is truncated: " + bytes.length + " bytes");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        int stored = buf.getInt(bytes.length - 4);
        if ((int) crc.getValue() != stored) {
            throw new IOException("store index " + file + " is corrupt: its CRC32C does not match");
        }
        byte[] magic = new byte[8];
        buf.get(magic);
        if (!Arrays.equals(magic, INDEX_MAGIC)) {
            throw new IOException(file + " is not a Khameleon store index (bad magic)");
        }
        int version = buf.getInt();
        if (version != VERSION) {
            throw new IOException("store index " + file + " has format version " + version + ", this reader supports "
                    + VERSION);
        }
        int blockSize = buf.getInt();
        int alignment = buf.getInt();
        long generation = buf.getLong();
        int n = buf.getInt();
        if (blockSize < 1 || alignment != ALIGNMENT || n < 0) {
            throw new IOException("store index " + file + " has an invalid header (blockSize " + blockSize
                    + ", alignment " + alignment + ", responses " + n + ")");
        }
        Entry[] entries = new Entry[n];
        for (int i = 0; i < n; i++) {
            if (buf.remaining() < ENTRY_FIXED_BYTES + 4) {
                throw new IOException("store index " + file + " is truncated at response " + i);
            }
            long segment = buf.getLong();
            long offset = buf.getLong();
            int count = buf.getInt();
            int lastPadding = buf.getInt();
            if (count < 1 || offset % ALIGNMENT != 0 || lastPadding < 0 || lastPadding > blockSize
                    || buf.remaining() < 4L * count + 4) {
                throw new IOException("store index " + file + " has an invalid entry for response " + i);
            }
            int[] crcs = new int[count];
            for (int b = 0; b < count; b++) {
                crcs[b] = buf.getInt();
            }
            entries[i] = new Entry(segment, offset, count, lastPadding, crcs);
        }
        if (buf.remaining() != 4) {
            throw new IOException("store index " + file + " has " + (buf.remaining() - 4) + " trailing bytes");
        }
        return new StoreIndex(generation, blockSize, entries);
    }

    /**
     * Publishes this index in {@code dir} crash-safely: writes {@code index.tmp}, forces it to
     * the device, renames it atomically over {@code index}, then forces the directory so the
     * rename itself is durable. A crash at any point leaves either the old or the new index.
     */
    void publish(Path dir) throws IOException {
        long size = HEADER_BYTES + 4;
        for (Entry e : entries) {
            size += ENTRY_FIXED_BYTES + 4L * e.count();
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new IOException("store index would be " + size + " bytes, more than the format allows");
        }
        ByteBuffer buf = ByteBuffer.allocate((int) size);
        buf.put(INDEX_MAGIC).putInt(VERSION).putInt(blockSize).putInt(ALIGNMENT).putLong(generation)
                .putInt(entries.length);
        for (Entry e : entries) {
            buf.putLong(e.segment()).putLong(e.offset()).putInt(e.count()).putInt(e.lastPadding());
            for (int c : e.crcs()) {
                buf.putInt(c);
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.array(), 0, buf.position());
        buf.putInt((int) crc.getValue());
        buf.flip();
        Path temp = dir.resolve(INDEX_TEMP);
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(temp, dir.resolve(INDEX_FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(dir);
    }

    static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (UnsupportedOperationException | java.nio.file.AccessDeniedException e) {
            // Platforms that cannot open a directory (Windows) make renames durable themselves.
        }
    }
}
