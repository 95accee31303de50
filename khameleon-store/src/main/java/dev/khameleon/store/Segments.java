package dev.khameleon.store;

import dev.khameleon.core.Block;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The open segment files of one published index, and the two operations every read strategy is
 * built from: read an aligned byte range of a response ({@link #read}) and turn bytes in a buffer
 * into a checked {@link Block} ({@link #decode}). Thread-safe: positional reads on Linux run
 * concurrently.
 */
final class Segments implements Closeable {
    private static final OpenOption DIRECT = directOption();

    private final StoreIndex index;
    private final long[] generations;
    private final Path[] paths;
    private final FileChannel[] channels;
    private final int[] segmentOf;
    private final boolean direct;
    private volatile Runnable beforeRead = () -> { };

    private Segments(StoreIndex index, long[] generations, Path[] paths, FileChannel[] channels, boolean direct) {
        this.index = index;
        this.generations = generations;
        this.paths = paths;
        this.channels = channels;
        this.direct = direct;
        this.segmentOf = new int[index.size()];
        for (int r = 0; r < segmentOf.length; r++) {
            segmentOf[r] = Arrays.binarySearch(generations, index.entry(r).segment());
        }
    }

    /**
     * Opens every segment {@code index} references and validates them: each header's magic,
     * version, block size and generation, and that every response of the index lies inside its
     * file. With {@link DirectIo#AUTO} or {@link DirectIo#REQUIRED}, tries {@code O_DIRECT} and
     * probes it with one aligned read of each file's header; AUTO falls back to buffered reads
     * for all files if any refuses.
     *
     * @param refuseDirect test hook: behave as if the file system refused {@code O_DIRECT}
     * @throws NoSuchFileException if a segment file does not exist (a commit may have deleted it
     *     since {@code index} was read)
     * @throws IOException if a segment cannot be opened or does not match the index, naming the
     *     file and the field
     */
    static Segments open(Path dir, StoreIndex index, DirectIo mode, boolean refuseDirect) throws IOException {
        Segments segments = openFiles(dir, index, mode, refuseDirect);
        try {
            long[] sizes = new long[segments.channels.length];
            for (int i = 0; i < sizes.length; i++) {
                sizes[i] = segments.channels[i].size();
                checkHeader(segments.paths[i], readHeader(segments.channels[i]), sizes[i], index.blockSize,
                        segments.generations[i]);
            }
            checkExtents(index, segments.generations, segments.paths, sizes);
            return segments;
        } catch (IOException | RuntimeException e) {
            segments.close();
            throw e;
        }
    }

    private static Segments openFiles(Path dir, StoreIndex index, DirectIo mode, boolean refuseDirect)
            throws IOException {
        long[] gens = index.segments();
        Path[] paths = new Path[gens.length];
        for (int i = 0; i < gens.length; i++) {
            paths[i] = dir.resolve(StoreIndex.segmentName(gens[i]));
        }
        if (mode != DirectIo.OFF) {
            FileChannel[] channels = new FileChannel[gens.length];
            int opened = 0;
            try {
                for (; opened < gens.length; opened++) {
                    if (refuseDirect || DIRECT == null) {
                        throw new IOException("O_DIRECT is not supported" + (DIRECT == null ? " by this JDK" : ""));
                    }
                    channels[opened] = FileChannel.open(paths[opened], StandardOpenOption.READ, DIRECT);
                    probe(channels[opened]);
                }
                return new Segments(index, gens, paths, channels, true);
            } catch (NoSuchFileException e) {
                closeAll(channels);
                throw e;
            } catch (IOException | UnsupportedOperationException e) {
                closeAll(channels);
                if (mode == DirectIo.REQUIRED) {
                    throw new IOException("O_DIRECT was required but " + paths[Math.min(opened, gens.length - 1)]
                            + " cannot be read with it: " + e.getMessage(), e);
                }
                // AUTO: this file system refuses O_DIRECT; fall back to buffered reads.
            }
        }
        FileChannel[] channels = new FileChannel[gens.length];
        try {
            for (int i = 0; i < gens.length; i++) {
                channels[i] = FileChannel.open(paths[i], StandardOpenOption.READ);
            }
        } catch (IOException e) {
            closeAll(channels);
            throw e;
        }
        return new Segments(index, gens, paths, channels, false);
    }

    private static ByteBuffer readHeader(FileChannel ch) throws IOException {
        // Aligned, so the same read works with O_DIRECT.
        ByteBuffer header = allocateAligned(StoreIndex.ALIGNMENT);
        // One read: a regular file returns fewer bytes only at its end, and a second read at an
        // unaligned position would fail under O_DIRECT. checkHeader reports a short header.
        ch.read(header, 0);
        return header.flip();
    }

    /**
     * Validates a segment file's header (its first bytes, up to 4096, in {@code header} from its
     * position to its limit) against the index that references it.
     *
     * @param fileSize the file's size in bytes
     * @param blockSize the index's block size
     * @param generation the generation the index (and the file's name) gives the segment
     * @throws IOException naming {@code file} and the first field that does not match
     */
    static void checkHeader(Path file, ByteBuffer header, long fileSize, int blockSize, long generation)
            throws IOException {
        if (fileSize < StoreIndex.ALIGNMENT || header.remaining() < StoreIndex.SEGMENT_MAGIC.length + 16) {
            throw new IOException("segment file " + file + " is truncated: " + fileSize + " bytes, its header alone"
                    + " takes " + StoreIndex.ALIGNMENT);
        }
        ByteBuffer h = header.slice().order(java.nio.ByteOrder.BIG_ENDIAN);
        byte[] magic = new byte[StoreIndex.SEGMENT_MAGIC.length];
        h.get(magic);
        if (!Arrays.equals(magic, StoreIndex.SEGMENT_MAGIC)) {
            throw new IOException(file + " is not a Khameleon store segment (bad magic)");
        }
        int version = h.getInt();
        if (version != StoreIndex.VERSION) {
            throw new IOException("segment file " + file + " has format version " + version
                    + ", this reader supports " + StoreIndex.VERSION);
        }
        int fileBlockSize = h.getInt();
        if (fileBlockSize != blockSize) {
            throw new IOException("segment file " + file + " has block size " + fileBlockSize
                    + ", but the store index says " + blockSize);
        }
        long fileGeneration = h.getLong();
        if (fileGeneration != generation) {
            throw new IOException("segment file " + file + " has generation " + fileGeneration
                    + ", but the store index says " + generation);
        }
    }

    /**
     * Checks that every response of {@code index} lies inside its segment file.
     *
     * @param generations the segment generations {@code index} references, ascending
     * @param paths the segment files, parallel to {@code generations}
     * @param sizes the segment files' sizes in bytes, parallel to {@code generations}
     * @throws IOException naming the first response and segment file that do not fit
     */
    static void checkExtents(StoreIndex index, long[] generations, Path[] paths, long[] sizes) throws IOException {
        for (int r = 0; r < index.size(); r++) {
            StoreIndex.Entry e = index.entry(r);
            int s = Arrays.binarySearch(generations, e.segment());
            // StoreIndex.parse bounds offset and count so that this cannot overflow.
            long end = e.offset() + (long) e.count() * index.blockSize;
            if (s < 0 || end > sizes[s]) {
                throw new IOException("store index response " + r + " (offset " + e.offset() + ", " + e.count()
                        + " blocks) ends at byte " + end + " but segment file "
                        + (s < 0 ? "of generation " + e.segment() + " is not open" : paths[s] + " has only "
                        + sizes[s] + " bytes"));
            }
        }
    }

    private static OpenOption directOption() {
        try {
            Class<?> c = Class.forName("com.sun.nio.file.ExtendedOpenOption");
            @SuppressWarnings({"unchecked", "rawtypes"})
            OpenOption o = (OpenOption) Enum.valueOf((Class) c, "DIRECT");
            return o;
        } catch (ReflectiveOperationException | IllegalArgumentException | LinkageError e) {
            return null;
        }
    }

    private static void probe(FileChannel ch) throws IOException {
        ByteBuffer buf = allocateAligned(StoreIndex.ALIGNMENT);
        ch.read(buf, 0);
    }

    private static void closeAll(FileChannel[] channels) {
        for (FileChannel c : channels) {
            if (c != null) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // Already failing; the original error is the one worth reporting.
                }
            }
        }
    }

    /** A direct buffer of {@code capacity} bytes whose address is aligned for {@code O_DIRECT}. */
    static ByteBuffer allocateAligned(int capacity) {
        return ByteBuffer.allocateDirect(capacity + StoreIndex.ALIGNMENT).alignedSlice(StoreIndex.ALIGNMENT)
                .limit(capacity);
    }

    /** The buffer capacity a read of {@code blocks} consecutive blocks may need (aligned envelope). */
    static int envelopeBytes(int blockSize, int blocks) {
        // Responses start aligned, so with an aligned block size every block does too.
        int misalignment = blockSize % StoreIndex.ALIGNMENT == 0 ? 0 : StoreIndex.ALIGNMENT;
        return (int) StoreIndex.alignUp((long) blockSize * blocks) + misalignment;
    }

    /** Test hook: runs on the I/O thread before every read. */
    void beforeReadForTesting(Runnable hook) {
        this.beforeRead = hook;
    }

    boolean direct() {
        return direct;
    }

    StoreIndex index() {
        return index;
    }

    /** A global disk-order key for block {@code block} of {@code requestId}: segment, then offset. */
    long diskPosition(int requestId, int block) {
        StoreIndex.Entry e = index.entry(requestId);
        return ((long) segmentOf[requestId] << 42) + e.offset() + (long) block * index.blockSize;
    }

    Path path(int requestId) {
        return paths[segmentOf[requestId]];
    }

    /**
     * Reads blocks {@code [from, to)} of {@code requestId} into {@code dst} (cleared first) with
     * one aligned positional read, and returns the offset in {@code dst} where block {@code from}
     * starts. {@code dst} must be aligned and hold {@link #envelopeBytes} for {@code to - from}.
     *
     * @return the position in {@code dst} of block {@code from}'s first byte
     * @throws IOException if the read fails or the file is shorter than the index says
     */
    int read(int requestId, int from, int to, ByteBuffer dst) throws IOException {
        beforeRead.run();
        StoreIndex.Entry e = index.entry(requestId);
        long start = e.offset() + (long) from * index.blockSize;
        long end = e.offset() + (long) to * index.blockSize;
        long alignedStart = StoreIndex.alignDown(start);
        int length = (int) (StoreIndex.alignUp(end) - alignedStart);
        dst.clear().limit(length);
        FileChannel ch = channels[segmentOf[requestId]];
        long pos = alignedStart;
        while (dst.hasRemaining()) {
            int n = ch.read(dst, pos);
            if (n < 0) {
                break;
            }
            pos += n;
        }
        int need = (int) (end - alignedStart);
        if (dst.position() < need) {
            throw new IOException("segment file " + path(requestId) + " ends at " + (alignedStart + dst.position())
                    + " but request " + requestId + " blocks " + from + ".." + (to - 1) + " end at " + end);
        }
        return (int) (start - alignedStart);
    }

    /** The number of bytes {@link #read} transfers for blocks {@code [from, to)} of a request. */
    long readLength(int requestId, int from, int to) {
        StoreIndex.Entry e = index.entry(requestId);
        long start = e.offset() + (long) from * index.blockSize;
        long end = e.offset() + (long) to * index.blockSize;
        return StoreIndex.alignUp(end) - StoreIndex.alignDown(start);
    }

    /**
     * Copies block {@code block} of {@code requestId}, which starts at {@code at} in {@code src},
     * into a new {@link Block} after checking its CRC32C. Does not move {@code src}'s position.
     *
     * @throws BlockCorruptedException if the bytes do not match the recorded checksum
     */
    Block decode(int requestId, int block, ByteBuffer src, int at) throws BlockCorruptedException {
        StoreIndex.Entry e = index.entry(requestId);
        byte[] payload = new byte[index.blockSize];
        src.get(at, payload);
        CRC32C crc = new CRC32C();
        crc.update(payload);
        int actual = (int) crc.getValue();
        if (actual != e.crcs()[block]) {
            throw new BlockCorruptedException(path(requestId), requestId, block,
                    e.offset() + (long) block * index.blockSize, e.crcs()[block], actual);
        }
        return Block.wrap(requestId, block, e.count(), payload, block == e.count() - 1 ? e.lastPadding() : 0);
    }

    @Override
    public void close() {
        closeAll(channels);
    }
}
