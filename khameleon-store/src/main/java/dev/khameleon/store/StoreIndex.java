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
    /** The smallest entry: the fixed fields and one block's CRC. */
    private static final int ENTRY_MIN_BYTES = ENTRY_FIXED_BYTES + 4;
    /** The largest block size a store may have: readers hold whole blocks in direct buffers. */
    static final int MAX_BLOCK_SIZE = 16 << 20;
    /** The largest index file: it is read whole into the heap when a store opens. */
    static final int MAX_INDEX_BYTES = 1 << 30;
    /** The largest segment file: read ordering packs offsets into 42 bits. */
    static final long MAX_SEGMENT_BYTES = 1L << 42;

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
     * @throws IOException if the index is damaged or larger than {@link #MAX_INDEX_BYTES}, naming
     *     the file and what is wrong
     */
    static StoreIndex read(Path dir) throws IOException {
        Path file = dir.resolve(INDEX_FILE);
        byte[] bytes;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            // The size is checked before anything is allocated: a huge file is refused, not read.
            long size = ch.size();
            if (size > MAX_INDEX_BYTES) {
                throw new IOException("store index " + file + " has " + size + " bytes, more than the limit of "
                        + MAX_INDEX_BYTES);
            }
            ByteBuffer buf = ByteBuffer.allocate((int) size);
            while (buf.hasRemaining() && ch.read(buf) >= 0) {
                // Read to the end: an atomically renamed index never changes under an open channel.
            }
            bytes = buf.hasRemaining() ? Arrays.copyOf(buf.array(), buf.position()) : buf.array();
        } catch (NoSuchFileException e) {
            throw new NoSuchFileException(file.toString(), null,
                    "no published store index (was an import ever committed in " + dir + "?)");
        }
        return parse(file, bytes);
    }

    /**
     * Parses and validates index bytes. Every field is checked against the format's limits and
     * the bytes that remain before anything is allocated from it, so crafted input (even with a
     * correct checksum) yields an {@link IOException} naming {@code file} and the field, never a
     * huge allocation or a runtime exception.
     *
     * @param file the index file, for messages only
     * @throws IOException if the bytes are not a valid index
     */
    static StoreIndex parse(Path file, byte[] bytes) throws IOException {
        if (bytes.length > MAX_INDEX_BYTES) {
            throw new IOException("store index " + file + " has " + bytes.length + " bytes, more than the limit of "
                    + MAX_INDEX_BYTES);
        }
        if (bytes.length < HEADER_BYTES + 4) {
            throw new IOException("store index " + file + " is truncated: " + bytes.length + " bytes");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer buf = ByteBuffer.wrap(bytes, 0, bytes.length - 4);
        int stored = ByteBuffer.wrap(bytes).getInt(bytes.length - 4);
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
        if (blockSize < 1 || blockSize > MAX_BLOCK_SIZE) {
            throw invalid(file, "block size", blockSize, "[1, " + MAX_BLOCK_SIZE + "]");
        }
        int alignment = buf.getInt();
        if (alignment != ALIGNMENT) {
            throw invalid(file, "alignment", alignment, "exactly " + ALIGNMENT);
        }
        long generation = buf.getLong();
        if (generation < 1 || generation == Long.MAX_VALUE) {
            // The next import's generation must not overflow.
            throw invalid(file, "generation", generation, "[1, " + (Long.MAX_VALUE - 1) + "]");
        }
        int n = buf.getInt();
        // Every entry takes at least ENTRY_MIN_BYTES, so the bytes left bound n before it sizes an array.
        long maxResponses = buf.remaining() / ENTRY_MIN_BYTES;
        if (n < 0 || n > maxResponses) {
            throw invalid(file, "response count", n, "[0, " + maxResponses + "] for its " + bytes.length + " bytes");
        }
        Entry[] entries = new Entry[n];
        for (int i = 0; i < n; i++) {
            if (buf.remaining() < ENTRY_MIN_BYTES) {
                throw new IOException("store index " + file + " is truncated at response " + i);
            }
            long segment = buf.getLong();
            if (segment < 1 || segment > generation) {
                throw invalidEntry(file, i, "segment generation", segment, "[1, " + generation + "]");
            }
            long offset = buf.getLong();
            if (offset < ALIGNMENT || offset > MAX_SEGMENT_BYTES || offset % ALIGNMENT != 0) {
                throw invalidEntry(file, i, "offset", offset, "a multiple of " + ALIGNMENT + " in [" + ALIGNMENT
                        + ", " + MAX_SEGMENT_BYTES + "]");
            }
            int count = buf.getInt();
            long maxCount = Math.min(buf.remaining() / 4 - 1, (MAX_SEGMENT_BYTES - offset) / blockSize);
            if (count < 1 || count > maxCount) {
                throw invalidEntry(file, i, "block count", count, "[1, " + maxCount + "] (bounded by the bytes left"
                        + " in the index and the segment size limit)");
            }
            int lastPadding = buf.getInt();
            if (lastPadding < 0 || lastPadding > blockSize) {
                throw invalidEntry(file, i, "padding", lastPadding, "[0, " + blockSize + "]");
            }
            int[] crcs = new int[count];
            for (int b = 0; b < count; b++) {
                crcs[b] = buf.getInt();
            }
            entries[i] = new Entry(segment, offset, count, lastPadding, crcs);
        }
        if (buf.hasRemaining()) {
            throw new IOException("store index " + file + " has " + buf.remaining() + " trailing bytes");
        }
        return new StoreIndex(generation, blockSize, entries);
    }

    private static IOException invalid(Path file, String field, long value, String allowed) {
        return new IOException("store index " + file + " has an invalid " + field + ": " + value + ", expected "
                + allowed);
    }

    private static IOException invalidEntry(Path file, int response, String field, long value, String allowed) {
        return new IOException("store index " + file + " has an invalid " + field + " for response " + response + ": "
                + value + ", expected " + allowed);
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
        if (size > MAX_INDEX_BYTES) {
            throw new IOException("store index would be " + size + " bytes, more than the limit of "
                    + MAX_INDEX_BYTES);
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
