package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ProgressiveEncoder;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A {@link BlockSource} over responses stored on disk by a {@link StoreWriter}: packed segment
 * files whose blocks of one response are contiguous and 4096-byte aligned, and an atomically
 * published index with a CRC32C per block (format: {@code docs/file-store.md}).
 *
 * <p>Reads follow the configured {@link ReadStrategy}. {@link #fetch} never blocks: it returns a
 * stage that completes on a store I/O thread once the block is read, or at once (on the calling
 * thread) when the block is already in read-ahead memory; attach slow continuations with the
 * {@code *Async} methods. A block whose bytes fail their checksum completes exceptionally with a
 * {@link BlockCorruptedException} naming the file, request and block; other I/O failures with an
 * {@link IOException}. {@link #prefetch} is a non-blocking hint, used by
 * {@link ReadStrategy#SCHEDULE_AWARE} and ignored by the others.
 *
 * <p>The store sees the index published when it was opened; reopen it to see later imports.
 * Thread-safe. {@link #close()} fails every fetch still in flight with an
 * {@link IllegalStateException} saying so, waits for the I/O threads to finish their current
 * read, and leaves no thread behind.
 */
public final class FileBlockStore implements BlockSource, Closeable {
    /** How often opening re-reads an index that a concurrent commit replaced before giving up. */
    static final int MAX_OPEN_ATTEMPTS = 16;

    private final Path dir;
    private final StoreIndex index;
    private final Segments segments;
    private final BlockReader reader;
    private final ReadStrategy strategy;
    private final BlockReader.Counters counters;

    private FileBlockStore(Builder b) throws IOException {
        this.dir = b.dir;
        this.strategy = b.strategy;
        this.segments = openConsistent(b);
        this.index = segments.index();
        if (b.beforeReadForTesting != null) {
            segments.beforeReadForTesting(b.beforeReadForTesting);
        }
        this.counters = new BlockReader.Counters();
        String name = b.dir.getFileName() == null ? b.dir.toString() : b.dir.getFileName().toString();
        try {
            this.reader = switch (b.strategy) {
                case NAIVE -> new NaiveReader(segments, counters, name, b.ioThreads.orElse(64), b.maxPendingReads);
                case SERIALIZED_READAHEAD -> ReadAheadReader.start(segments, counters, name, false,
                        ReadConcurrency.fixed(b.ioThreads.orElse(1)), b.readAheadBytes, b.poolBytes,
                        b.maxPendingReads, 0, System::nanoTime);
                case SCHEDULE_AWARE -> ReadAheadReader.start(segments, counters, name, true,
                        b.ioThreads.isPresent() ? ReadConcurrency.fixed(b.ioThreads.getAsInt())
                                : adaptiveConcurrency(index.blockSize, b.readAheadBytes, b.poolBytes),
                        b.readAheadBytes, b.poolBytes, b.maxPendingReads, b.demandBurstReads, System::nanoTime);
            };
        } catch (RuntimeException e) {
            segments.close();
            throw e;
        }
    }

    /** Most I/O threads {@link ReadStrategy#SCHEDULE_AWARE} adapts up to by default. */
    static final int ADAPTIVE_MAX_IO_THREADS = 8;
    /** Reads in flight it starts from and never goes below (fewer always lost in docs/benchmarks.md). */
    static final int ADAPTIVE_MIN_READS = 4;

    /**
     * The default read concurrency of {@link ReadStrategy#SCHEDULE_AWARE}: adaptive, from
     * {@value #ADAPTIVE_MIN_READS} up to {@value #ADAPTIVE_MAX_IO_THREADS} reads in flight, or as
     * many as the pool holds beside one more (so a small pool still opens; one that holds fewer
     * than two reads is refused).
     */
    private static ReadConcurrency adaptiveConcurrency(int blockSize, int readAheadBytes, long poolBytes) {
        long fit = ReadAheadReader.largestReadsFitting(poolBytes, blockSize, readAheadBytes);
        int max = (int) Math.max(1, Math.min(ADAPTIVE_MAX_IO_THREADS, fit - 1));
        return ReadConcurrency.adaptive(Math.min(ADAPTIVE_MIN_READS, max), max);
    }

    /**
     * Reads the index and opens the segments it references. A commit between the two may delete a
     * segment the index just read references; then the index has moved on, so read it again.
     */
    private static Segments openConsistent(Builder b) throws IOException {
        StoreIndex index = StoreIndex.read(b.dir);
        for (int attempt = 1; ; attempt++) {
            b.afterIndexReadForTesting.run();
            try {
                return Segments.open(b.dir, index, b.directIo, b.refuseDirectForTesting);
            } catch (NoSuchFileException e) {
                StoreIndex now = StoreIndex.read(b.dir);
                if (now.generation == index.generation) {
                    throw new IOException("store " + b.dir + " is damaged: its index (generation " + index.generation
                            + ") references " + e.getFile() + ", which does not exist", e);
                }
                if (attempt == MAX_OPEN_ATTEMPTS) {
                    throw new IOException("store " + b.dir + " changed " + attempt + " times while opening (imports are"
                            + " committing faster than it can open); gave up at generation " + now.generation, e);
                }
                index = now;
            }
        }
    }

    /** A builder for a store over the published index in {@code dir}. */
    public static Builder builder(Path dir) {
        return new Builder(dir);
    }

    /** Opens {@code dir} with every default setting ({@link ReadStrategy#SCHEDULE_AWARE}, buffered reads). */
    public static FileBlockStore open(Path dir) throws IOException {
        return builder(dir).build();
    }

    /**
     * Encodes {@code responses} with {@code encoder} and imports them into {@code dir} as request
     * ids {@code firstRequestId, firstRequestId + 1, ...} in one crash-safe import: all of them
     * become visible together, or (on any failure) none. Creates the store if needed.
     *
     * @throws IllegalArgumentException if an id is negative, the encoder's block size differs from
     *     an existing store's, or the encoder rejects a response
     * @throws IllegalStateException if the ids would leave a gap in {@code 0..n-1}
     * @throws IOException if writing fails; the store is then as it was
     */
    public static <R> ImportSummary importResponses(Path dir, ProgressiveEncoder<R> encoder, int firstRequestId,
            Iterable<? extends R> responses) throws IOException {
        Objects.requireNonNull(encoder, "encoder");
        try (StoreWriter writer = StoreWriter.open(dir, encoder.blockSize())) {
            int id = firstRequestId;
            for (R response : responses) {
                writer.add(id++, response, encoder);
            }
            return writer.commit();
        }
    }

    @Override
    public int requestCount() {
        return index.size();
    }

    @Override
    public int blockSize() {
        return index.blockSize;
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if {@code requestId} is not in {@code [0, requestCount())}
     */
    @Override
    public int blockCount(int requestId) {
        checkRequest(requestId);
        return index.entry(requestId).count();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Completes exceptionally with {@link IllegalArgumentException} for an id or index out of
     * range, {@link BlockCorruptedException} for a checksum mismatch, {@link IOException} for a
     * failed read, and {@link IllegalStateException} if the store is closed or its read queue
     * ({@link Builder#maxPendingReads}) is full.
     */
    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        if (requestId < 0 || requestId >= index.size()) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "request id " + requestId + " out of range [0, " + index.size() + ") in store " + dir));
        }
        int count = index.entry(requestId).count();
        if (blockIndex < 0 || blockIndex >= count) {
            return CompletableFuture.failedFuture(new IllegalArgumentException(
                    "block index " + blockIndex + " out of range [0, " + count + ") for request " + requestId));
        }
        return reader.fetch(requestId, blockIndex);
    }

    /**
     * {@inheritDoc}
     *
     * <p>With {@link ReadStrategy#SCHEDULE_AWARE}, queues one read per response of the chunk
     * (merged from its first to its last announced block, capped by the read-ahead size) in
     * schedule order; entries out of range are ignored; when the hint queue is full the rest of
     * the hint is dropped and counted in {@link StoreStats#hintsDropped()}.
     */
    @Override
    public void prefetch(ScheduleChunk chunk) {
        reader.prefetch(chunk);
    }

    /** The strategy this store reads with. */
    public ReadStrategy strategy() {
        return strategy;
    }

    /** Whether reads bypass the page cache ({@code O_DIRECT}); false after an AUTO fallback. */
    public boolean directIo() {
        return segments.direct();
    }

    /** The store directory. */
    public Path directory() {
        return dir;
    }

    /** A snapshot of this store's counters. */
    public StoreStats stats() {
        return new StoreStats(strategy, segments.direct(), counters.readCalls.sum(), counters.bytesRead.sum(),
                counters.blocksServed.sum(), counters.blocksFromMemory.sum(), counters.corruptBlocks.sum(),
                counters.hintsDropped.sum(), reader.capacityBytes(), reader.allocatedBytes(), reader.peakBytes());
    }

    BlockReader reader() {
        return reader;
    }

    /**
     * Fails fetches in flight, stops the I/O threads (waiting for reads already issued to the
     * file system to return) and closes the files. Idempotent.
     */
    @Override
    public void close() {
        try {
            reader.close();
        } finally {
            segments.close();
        }
    }

    private void checkRequest(int requestId) {
        if (requestId < 0 || requestId >= index.size()) {
            throw new IllegalArgumentException("request id " + requestId + " out of range [0, " + index.size()
                    + ") in store " + dir);
        }
    }

    @Override
    public String toString() {
        return "FileBlockStore[" + dir + ", " + index.size() + " responses, " + strategy
                + (segments.direct() ? ", O_DIRECT" : "") + "]";
    }

    /**
     * Settings for one {@link FileBlockStore}; each setter validates at once and names the setting
     * and the bad value. Not thread-safe.
     */
    public static final class Builder {
        private final Path dir;
        private ReadStrategy strategy = ReadStrategy.SCHEDULE_AWARE;
        private java.util.OptionalInt ioThreads = java.util.OptionalInt.empty();
        private int readAheadBytes = 1 << 20;
        private long poolBytes = 64L << 20;
        private int demandBurstReads;
        private int maxPendingReads = 1 << 16;
        private DirectIo directIo = DirectIo.OFF;
        private boolean refuseDirectForTesting;
        private Runnable beforeReadForTesting;
        private Runnable afterIndexReadForTesting = () -> { };

        private Builder(Path dir) {
            this.dir = Objects.requireNonNull(dir, "dir");
        }

        /** The read strategy; default {@link ReadStrategy#SCHEDULE_AWARE}. */
        public Builder strategy(ReadStrategy strategy) {
            this.strategy = Objects.requireNonNull(strategy, "strategy");
            return this;
        }

        /**
         * A fixed number of I/O threads (reads in flight); default 64 for {@link ReadStrategy#NAIVE}
         * (reads in flight as a thread-per-request server would have), 1 for
         * {@link ReadStrategy#SERIALIZED_READAHEAD} (Libception's full serialization); for
         * {@link ReadStrategy#SCHEDULE_AWARE} the default adapts the reads in flight to the
         * device's latency, between 4 and 8 (see {@code docs/file-store.md}), and setting this
         * fixes the count instead.
         *
         * @throws IllegalArgumentException if not in {@code [1, 4096]}
         */
        public Builder ioThreads(int ioThreads) {
            if (ioThreads < 1 || ioThreads > 4096) {
                throw new IllegalArgumentException("ioThreads must be in [1, 4096], was " + ioThreads);
            }
            this.ioThreads = java.util.OptionalInt.of(ioThreads);
            return this;
        }

        /**
         * For {@link ReadStrategy#SCHEDULE_AWARE} with the adaptive default: up to {@code n} more
         * reads for waiting senders may run beyond the adaptive limit, each only in memory that
         * no announced data holds (free memory, cold data), so a burst of misses is read at once
         * instead of queueing behind 4-8 reads. Default 0 (off): on the benchmark host it did not
         * shorten the paced latency tail and it raised the bytes read per byte served
         * ({@code docs/benchmarks.md}). Ignored with a fixed {@link #ioThreads}; a small pool
         * allows fewer.
         *
         * @throws IllegalArgumentException if not in {@code [0, 64]}
         */
        public Builder demandBurstReads(int n) {
            if (n < 0 || n > ReadAheadReader.MAX_DEMAND_BURST_READS) {
                throw new IllegalArgumentException("demandBurstReads must be in [0, "
                        + ReadAheadReader.MAX_DEMAND_BURST_READS + "], was " + n);
            }
            this.demandBurstReads = n;
            return this;
        }

        /**
         * The most bytes one read-ahead read fetches (rounded down to whole blocks, at least one
         * block); default 1 MiB.
         *
         * @throws IllegalArgumentException if not in {@code [1, 256 MiB]}
         */
        public Builder readAheadBytes(int readAheadBytes) {
            if (readAheadBytes < 1 || readAheadBytes > (256 << 20)) {
                throw new IllegalArgumentException("readAheadBytes must be in [1, 268435456], was " + readAheadBytes);
            }
            this.readAheadBytes = readAheadBytes;
            return this;
        }

        /**
         * The read-ahead memory of {@link ReadStrategy#SERIALIZED_READAHEAD} and
         * {@link ReadStrategy#SCHEDULE_AWARE}: one direct-memory arena allocated when the store
         * opens, handed out in power-of-two blocks (so a read of {@code b} bytes holds less than
         * {@code 2b}); default 64 MiB. It must hold at least {@code ioThreads + 1} of the largest
         * reads (checked by {@link #build()}; the adaptive default uses fewer threads if it
         * holds fewer than 9).
         *
         * @throws IllegalArgumentException if not in {@code [1, 1 GiB]}
         */
        public Builder poolBytes(long poolBytes) {
            if (poolBytes < 1 || poolBytes > (1L << 30)) {
                throw new IllegalArgumentException("poolBytes must be in [1, 1073741824], was " + poolBytes);
            }
            this.poolBytes = poolBytes;
            return this;
        }

        /**
         * The most reads that may wait for an I/O thread (and, separately, queued prefetch
         * hints); fetches beyond it fail at once instead of queuing without bound. Default 65536.
         *
         * @throws IllegalArgumentException if not in {@code [1, 16777216]}
         */
        public Builder maxPendingReads(int maxPendingReads) {
            if (maxPendingReads < 1 || maxPendingReads > (1 << 24)) {
                throw new IllegalArgumentException("maxPendingReads must be in [1, 16777216], was " + maxPendingReads);
            }
            this.maxPendingReads = maxPendingReads;
            return this;
        }

        /** Whether to bypass the page cache; default {@link DirectIo#OFF}. */
        public Builder directIo(DirectIo directIo) {
            this.directIo = Objects.requireNonNull(directIo, "directIo");
            return this;
        }

        /** Test hook: run {@code hook} on the I/O thread before every read. */
        Builder beforeReadForTesting(Runnable hook) {
            this.beforeReadForTesting = hook;
            return this;
        }

        /** Test hook: run {@code hook} after each read of the index, before its segments are opened. */
        Builder afterIndexReadForTesting(Runnable hook) {
            this.afterIndexReadForTesting = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /** Test hook: make the store behave as if the file system refused {@code O_DIRECT}. */
        Builder refuseDirectForTesting() {
            this.refuseDirectForTesting = true;
            return this;
        }

        /**
         * Opens the store: reads and validates the index, opens the segment files, starts the
         * I/O threads.
         *
         * <p>A commit that replaces the index while the store opens makes it read the new index
         * and try again, up to 16 times; imports committing faster than that fail the open with an
         * {@link IOException} saying so.
         *
         * @throws java.nio.file.NoSuchFileException if no index was ever published in the directory
         * @throws IOException if the index or a segment file is damaged or does not match the
         *     other (the message names the file and the field), a segment cannot be opened,
         *     {@link DirectIo#REQUIRED} cannot be honoured, or the index kept changing
         * @throws IllegalArgumentException if {@code poolBytes} is too small for the read-ahead size
         */
        public FileBlockStore build() throws IOException {
            return new FileBlockStore(this);
        }
    }
}
