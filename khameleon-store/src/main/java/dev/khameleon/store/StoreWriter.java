package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;

import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * One import into a store directory: responses added here are written to a new segment file and
 * become visible to readers only when {@link #commit()} atomically publishes a new index.
 *
 * <p>Crash safety: until {@code commit} returns, the published index is untouched, so a crash,
 * an exception or {@link #close()} without commit leaves the store exactly as it was; the
 * unpublished segment is deleted by {@code close} or, after a crash, by the next writer. Only one
 * writer may be open on a directory at a time (an exclusive lock on its {@code lock} file, held
 * from {@code open} to {@code commit} or {@code close}); the index is read under that lock, so
 * {@link #nextFreeId()} and {@link #append} never hand out an id another import is using.
 * Readers already open keep their view until they are reopened.
 *
 * <p>Not thread-safe: use a writer from one thread.
 */
public final class StoreWriter implements Closeable {
    private static final int STAGING_BYTES = 1 << 20;

    private final Path dir;
    private final int blockSize;
    private final StoreIndex previous;
    private final long generation;
    private final Path segmentPath;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private FileChannel segment;
    private final ByteBuffer staging = ByteBuffer.allocate(STAGING_BYTES);
    private final TreeMap<Integer, StoreIndex.Entry> added = new TreeMap<>();
    private long position;
    private long blocksWritten;
    private boolean finished;

    private StoreWriter(Path dir, int blockSize, StoreIndex previous, FileChannel lockChannel, FileLock lock)
            throws IOException {
        this.dir = dir;
        this.blockSize = blockSize;
        this.previous = previous;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.generation = previous == null ? 1 : previous.generation + 1;
        this.segmentPath = dir.resolve(StoreIndex.segmentName(generation));
        this.segment = FileChannel.open(segmentPath, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        ByteBuffer header = ByteBuffer.allocate(StoreIndex.ALIGNMENT);
        header.put(StoreIndex.SEGMENT_MAGIC).putInt(StoreIndex.VERSION).putInt(blockSize).putLong(generation);
        header.clear();
        writeFully(header);
        this.position = StoreIndex.ALIGNMENT;
    }

    /**
     * Opens a writer on {@code dir}, creating the directory and an empty store if needed, and
     * deleting what an interrupted earlier import left behind (unpublished segments, a partial
     * {@code index.tmp}). Fails at once if another writer (in this or another process) holds the
     * store; {@link #open(Path, int, Duration)} waits for it instead.
     *
     * @throws IllegalArgumentException if {@code blockSize} is not in {@code [1, 16 MiB]} or
     *     differs from the existing store's
     * @throws IOException if the directory cannot be written, its index is damaged, or another
     *     writer holds it
     */
    public static StoreWriter open(Path dir, int blockSize) throws IOException {
        return open(dir, blockSize, Duration.ZERO);
    }

    /**
     * Opens a writer on {@code dir} as {@link #open(Path, int)} does, but waits up to
     * {@code lockWait} for another writer (in this or another process) to commit or close first.
     * The writer reads the published index only once it holds the lock, so
     * {@link #nextFreeId()} accounts for every import committed before it.
     *
     * @throws IllegalArgumentException if {@code blockSize} is not in {@code [1, 16 MiB]} or
     *     differs from the existing store's, or {@code lockWait} is negative
     * @throws IOException if the directory cannot be written, its index is damaged, or another
     *     writer still holds the store after {@code lockWait}
     * @throws InterruptedIOException if the thread is interrupted while waiting
     */
    public static StoreWriter open(Path dir, int blockSize, Duration lockWait) throws IOException {
        Objects.requireNonNull(dir, "dir");
        if (blockSize < 1 || blockSize > StoreIndex.MAX_BLOCK_SIZE) {
            throw new IllegalArgumentException("blockSize must be in [1, " + StoreIndex.MAX_BLOCK_SIZE + "], was "
                    + blockSize);
        }
        if (lockWait.isNegative()) {
            throw new IllegalArgumentException("lockWait must be >= 0, was " + lockWait);
        }
        Files.createDirectories(dir);
        FileChannel lockChannel = FileChannel.open(dir.resolve(StoreIndex.LOCK_FILE), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
        try {
            FileLock lock = acquire(lockChannel, dir, lockWait);
            StoreIndex previous;
            try {
                previous = StoreIndex.read(dir);
            } catch (NoSuchFileException e) {
                previous = null;
            }
            if (previous != null && previous.blockSize != blockSize) {
                throw new IllegalArgumentException("blockSize " + blockSize + " differs from the store's block size "
                        + previous.blockSize + " at " + dir);
            }
            deleteUnreferenced(dir, previous);
            return new StoreWriter(dir, blockSize, previous, lockChannel, lock);
        } catch (IOException | RuntimeException e) {
            lockChannel.close();
            throw e;
        }
    }

    /**
     * Takes the store's exclusive lock, polling until {@code wait} has passed. Polling because
     * {@link FileChannel#lock()} cannot wait for a holder in the same JVM (it throws
     * {@link OverlappingFileLockException}) and cannot time out.
     */
    private static FileLock acquire(FileChannel lockChannel, Path dir, Duration wait) throws IOException {
        long deadline = System.nanoTime() + Math.min(wait.toNanos(), Long.MAX_VALUE / 4);
        long pauseMillis = 1;
        while (true) {
            try {
                FileLock lock = lockChannel.tryLock();
                if (lock != null) {
                    return lock;
                }
            } catch (OverlappingFileLockException e) {
                // Another writer in this JVM holds it: wait as for one in another process.
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IOException("another StoreWriter holds the store at " + dir
                        + (wait.isZero() ? "" : " and did not release it within " + wait));
            }
            try {
                Thread.sleep(Math.min(pauseMillis, Math.max(1, left / 1_000_000)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the writer lock of " + dir);
            }
            pauseMillis = Math.min(50, pauseMillis * 2);
        }
    }

    /**
     * The first request id after every id of the store (as published when this writer took the
     * lock) and every id added by this writer: where an import that appends starts. Two writers
     * never see the same value for ids they both add, because the second one reads the index
     * only after the first released the lock.
     */
    public int nextFreeId() {
        int published = previous == null ? 0 : previous.size();
        return added.isEmpty() ? published : Math.max(published, added.lastKey() + 1);
    }

    /**
     * Encodes {@code response} and adds it under {@link #nextFreeId()}, as
     * {@link #add(int, Object, ProgressiveEncoder)} does.
     *
     * @return the request id the response was stored under
     */
    public <R> int append(R response, ProgressiveEncoder<R> encoder) throws IOException {
        int id = nextFreeId();
        add(id, response, encoder);
        return id;
    }

    /** The block size every added block must have. */
    public int blockSize() {
        return blockSize;
    }

    /**
     * Adds (or, for an id already in the store, replaces) the response of {@code requestId}.
     *
     * @param blocks the response's blocks in order: block {@code i} has index {@code i}, all share
     *     the count {@code blocks.size()} and this request id, have exactly {@link #blockSize()}
     *     bytes, and only the last has padding
     * @throws IllegalArgumentException if the blocks violate that, the id was already added by
     *     this writer, or the response would take this import's segment past 4 TiB
     * @throws IOException if writing fails (the writer is then unusable; close it)
     */
    public void add(int requestId, List<Block> blocks) throws IOException {
        checkOpen();
        if (requestId < 0) {
            throw new IllegalArgumentException("requestId must be >= 0, was " + requestId);
        }
        if (added.containsKey(requestId)) {
            throw new IllegalArgumentException("request " + requestId + " was already added in this import");
        }
        if (blocks.isEmpty()) {
            throw new IllegalArgumentException("request " + requestId + " has no blocks");
        }
        int count = blocks.size();
        for (int i = 0; i < count; i++) {
            Block b = blocks.get(i);
            if (b.requestId() != requestId || b.index() != i || b.count() != count) {
                throw new IllegalArgumentException("request " + requestId + ", position " + i + ": expected block "
                        + i + "/" + count + " of request " + requestId + ", got " + b);
            }
            if (b.size() != blockSize) {
                throw new IllegalArgumentException("request " + requestId + " block " + i + " has " + b.size()
                        + " bytes, expected the store's block size " + blockSize);
            }
            if (i < count - 1 && b.padding() != 0) {
                throw new IllegalArgumentException("request " + requestId + " block " + i
                        + " has padding but is not the last block");
            }
        }
        long offset = StoreIndex.alignUp(position);
        if (offset + (long) count * blockSize > StoreIndex.MAX_SEGMENT_BYTES) {
            throw new IllegalArgumentException("request " + requestId + " does not fit: one import's segment may hold"
                    + " at most " + StoreIndex.MAX_SEGMENT_BYTES + " bytes; commit and start another import");
        }
        padTo(offset);
        int[] crcs = new int[count];
        CRC32C crc = new CRC32C();
        for (int i = 0; i < count; i++) {
            ByteBuffer payload = blocks.get(i).payload();
            crc.reset();
            crc.update(payload.duplicate());
            crcs[i] = (int) crc.getValue();
            write(payload);
        }
        added.put(requestId, new StoreIndex.Entry(generation, offset, count, blocks.get(count - 1).padding(), crcs));
        blocksWritten += count;
    }

    /**
     * Compacts {@code dir} in one crash-safe import: opens a writer (waiting up to {@code lockWait}
     * for another import), {@linkplain #compact() moves} the live responses out of segments holding
     * dead bytes, and commits. Readers already open keep serving from the files they opened; a
     * reopened store sees the same responses in fewer bytes.
     *
     * @return what the commit wrote (zero responses if no segment held dead bytes)
     * @throws java.nio.file.NoSuchFileException if no index was ever published in {@code dir}
     * @throws IOException if reading a live block (its checksum included) or writing fails; the
     *     store is then as it was
     */
    public static ImportSummary compact(Path dir, Duration lockWait) throws IOException {
        int blockSize = StoreIndex.read(dir).blockSize;
        try (StoreWriter writer = open(dir, blockSize, lockWait)) {
            writer.compact();
            return writer.commit();
        }
    }

    /**
     * Adds to this import, unchanged, every response of the published index that lives in a
     * segment also holding dead bytes (responses a later import replaced), so that the commit
     * leaves those segments unreferenced and deletes them. Each block is read back and checked
     * against its CRC32C first; one response is held in memory at a time. Responses this writer
     * already added are left alone.
     *
     * @return how many responses were added
     * @throws IOException if a segment cannot be read or a block fails its checksum (the import
     *     is then unusable; close it, and the store stays as it was)
     */
    public int compact() throws IOException {
        checkOpen();
        if (previous == null || previous.size() == 0) {
            return 0;
        }
        Map<Long, Long> live = new HashMap<>();
        for (int id = 0; id < previous.size(); id++) {
            StoreIndex.Entry e = previous.entry(id);
            live.merge(e.segment(), StoreIndex.alignUp((long) e.count() * blockSize), Long::sum);
        }
        Set<Long> wasteful = new HashSet<>();
        for (Map.Entry<Long, Long> m : live.entrySet()) {
            long size = Files.size(dir.resolve(StoreIndex.segmentName(m.getKey())));
            if (size > StoreIndex.ALIGNMENT + m.getValue()) {
                wasteful.add(m.getKey());
            }
        }
        if (wasteful.isEmpty()) {
            return 0;
        }
        int moved = 0;
        try (Segments segments = Segments.open(dir, previous, DirectIo.OFF, false)) {
            ByteBuffer buf = Segments.allocateAligned(Segments.envelopeBytes(blockSize, 1));
            for (int id = 0; id < previous.size(); id++) {
                StoreIndex.Entry e = previous.entry(id);
                if (!wasteful.contains(e.segment()) || added.containsKey(id)) {
                    continue;
                }
                List<Block> blocks = new ArrayList<>(e.count());
                for (int b = 0; b < e.count(); b++) {
                    buf.clear();
                    int at = segments.read(id, b, b + 1, buf);
                    blocks.add(segments.decode(id, b, buf, at));
                }
                add(id, blocks);
                moved++;
            }
        }
        return moved;
    }

    /**
     * Encodes {@code response} with {@code encoder} and adds it as {@link #add(int, List)} does.
     *
     * @throws IllegalArgumentException if the encoder's block size differs from the store's, or
     *     the encoder rejects the response
     */
    public <R> void add(int requestId, R response, ProgressiveEncoder<R> encoder) throws IOException {
        if (encoder.blockSize() != blockSize) {
            throw new IllegalArgumentException("encoder block size " + encoder.blockSize()
                    + " differs from the store's block size " + blockSize);
        }
        add(requestId, encoder.encode(requestId, response));
    }

    /**
     * Makes every added response durable and visible: forces the segment to the device, then
     * publishes the new index atomically (see {@code docs/file-store.md}). Afterwards deletes
     * segment files no response refers to any more, and closes the writer.
     *
     * @throws IllegalStateException if the store would not cover ids {@code 0..n-1} densely
     *     (nothing is published; the writer stays open so more responses can be added)
     * @throws IOException if writing fails; the previously published index is then still intact
     */
    public ImportSummary commit() throws IOException {
        checkOpen();
        List<StoreIndex.Entry> merged = new ArrayList<>();
        int n = Math.max(previous == null ? 0 : previous.size(), added.isEmpty() ? 0 : added.lastKey() + 1);
        for (int id = 0; id < n; id++) {
            StoreIndex.Entry e = added.get(id);
            if (e == null && previous != null && id < previous.size()) {
                e = previous.entry(id);
            }
            if (e == null) {
                throw new IllegalStateException("request ids must be dense: request " + id + " is missing (store would"
                        + " have " + n + " responses)");
            }
            merged.add(e);
        }
        if (added.isEmpty()) {
            close();
            return new ImportSummary(0, 0, 0, 0, n);
        }
        padTo(StoreIndex.alignUp(position));
        flush();
        segment.force(true);
        long bytes = segment.size();
        segment.close();
        StoreIndex index = new StoreIndex(generation, blockSize, merged.toArray(new StoreIndex.Entry[0]));
        index.publish(dir);
        finished = true;
        deleteUnreferenced(dir, index);
        releaseLock();
        return new ImportSummary(generation, added.size(), blocksWritten, bytes, n);
    }

    /**
     * Abandons an import that was not committed, deleting its segment file, and releases the
     * directory. Does nothing after {@link #commit()}.
     */
    @Override
    public void close() throws IOException {
        if (finished) {
            return;
        }
        finished = true;
        try {
            segment.close();
            Files.deleteIfExists(segmentPath);
        } finally {
            releaseLock();
        }
    }

    /**
     * Test hook simulating a crash between the data write and the index publish: forces the data
     * to the device, then releases everything without publishing or deleting anything.
     */
    void crashAfterDataSync() throws IOException {
        padTo(StoreIndex.alignUp(position));
        flush();
        segment.force(true);
        segment.close();
        finished = true;
        releaseLock();
    }

    private void releaseLock() throws IOException {
        try {
            lock.release();
        } finally {
            lockChannel.close();
        }
    }

    private void checkOpen() {
        if (finished) {
            throw new IllegalStateException("this StoreWriter was already committed or closed");
        }
    }

    private void padTo(long target) throws IOException {
        while (position < target) {
            int n = (int) Math.min(target - position, staging.remaining());
            for (int i = 0; i < n; i++) {
                staging.put((byte) 0);
            }
            position += n;
            if (!staging.hasRemaining()) {
                flush();
            }
        }
    }

    private void write(ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            int n = Math.min(src.remaining(), staging.remaining());
            ByteBuffer part = src.duplicate();
            part.limit(part.position() + n);
            staging.put(part);
            src.position(src.position() + n);
            position += n;
            if (!staging.hasRemaining()) {
                flush();
            }
        }
    }

    private void flush() throws IOException {
        staging.flip();
        writeFully(staging);
        staging.clear();
    }

    private void writeFully(ByteBuffer buf) throws IOException {
        while (buf.hasRemaining()) {
            segment.write(buf);
        }
    }

    /** Deletes segments {@code index} does not reference and any leftover temporary index. */
    private static void deleteUnreferenced(Path dir, StoreIndex index) throws IOException {
        long[] live = index == null ? new long[0] : index.segments();
        Files.deleteIfExists(dir.resolve(StoreIndex.INDEX_TEMP));
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "segment-*.dat")) {
            for (Path f : files) {
                long gen = StoreIndex.segmentGeneration(f.getFileName().toString());
                if (gen >= 0 && java.util.Arrays.binarySearch(live, gen) < 0) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }
}
