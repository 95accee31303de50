package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@link ReadStrategy#NAIVE}: each fetch is one positional read of its block on a fixed pool of
 * threads, the way a thread-per-request server reads. Each thread owns one aligned buffer.
 */
final class NaiveReader implements BlockReader {
    private final Segments segments;
    private final Counters counters;
    private final String name;
    private final int bufferBytes;
    private final int threads;
    private final ThreadPoolExecutor executor;
    /** One aligned buffer per thread, allocated up front; a worker always finds one. */
    private final ArrayBlockingQueue<ByteBuffer> buffers;
    private final Set<FetchTask> running = ConcurrentHashMap.newKeySet();
    private final AtomicInteger busyBuffers = new AtomicInteger();
    private final AtomicInteger peakBusy = new AtomicInteger();
    private volatile boolean closed;

    NaiveReader(Segments segments, Counters counters, String name, int threads, int maxPendingReads) {
        this.segments = segments;
        this.counters = counters;
        this.name = name;
        this.threads = threads;
        this.bufferBytes = Segments.envelopeBytes(segments.index().blockSize, 1);
        AtomicInteger threadNumber = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(maxPendingReads), r -> {
                    Thread t = new Thread(r, "khameleon-store-" + name + "-naive-" + threadNumber.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
        this.buffers = new ArrayBlockingQueue<>(threads);
        for (int i = 0; i < threads; i++) {
            buffers.add(Segments.allocateAligned(bufferBytes));
        }
        executor.prestartAllCoreThreads();
    }

    @Override
    public CompletableFuture<Block> fetch(int requestId, int blockIndex) {
        FetchTask task = new FetchTask(requestId, blockIndex);
        if (closed) {
            task.future.completeExceptionally(BlockReader.closedError(name, requestId, blockIndex));
            return task.future;
        }
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            task.future.completeExceptionally(closed ? BlockReader.closedError(name, requestId, blockIndex)
                    : new IllegalStateException("FileBlockStore " + name + ": too many reads pending ("
                    + executor.getQueue().size() + "); block " + blockIndex + " of request " + requestId
                    + " was not queued"));
        }
        return task.future;
    }

    @Override
    public void prefetch(ScheduleChunk chunk) {
        // Naive reads only what is fetched, when it is fetched.
    }

    @Override
    public long allocatedBytes() {
        return capacityBytes();
    }

    @Override
    public long peakBytes() {
        return (long) peakBusy.get() * (bufferBytes + StoreIndex.ALIGNMENT);
    }

    @Override
    public long capacityBytes() {
        return (long) threads * (bufferBytes + StoreIndex.ALIGNMENT);
    }

    @Override
    public void close() {
        closed = true;
        executor.shutdown();
        List<Runnable> queued = new ArrayList<>();
        executor.getQueue().drainTo(queued);
        for (Runnable r : queued) {
            FetchTask t = (FetchTask) r;
            t.future.completeExceptionally(BlockReader.closedError(name, t.requestId, t.blockIndex));
        }
        for (FetchTask t : running) {
            t.future.completeExceptionally(BlockReader.closedError(name, t.requestId, t.blockIndex));
        }
        boolean interrupted = false;
        // Never interrupt the workers: an interrupt during a read closes the shared FileChannel.
        while (!executor.isTerminated()) {
            try {
                executor.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private final class FetchTask implements Runnable {
        final int requestId;
        final int blockIndex;
        final CompletableFuture<Block> future = new CompletableFuture<>();

        FetchTask(int requestId, int blockIndex) {
            this.requestId = requestId;
            this.blockIndex = blockIndex;
        }

        @Override
        public void run() {
            // Register before checking: close() sets the flag, then fails whatever is registered.
            running.add(this);
            if (closed) {
                running.remove(this);
                future.completeExceptionally(BlockReader.closedError(name, requestId, blockIndex));
                return;
            }
            ByteBuffer buf = buffers.poll();
            peakBusy.accumulateAndGet(busyBuffers.incrementAndGet(), Math::max);
            try {
                int at = segments.read(requestId, blockIndex, blockIndex + 1, buf);
                counters.readCalls.increment();
                counters.bytesRead.add(segments.readLength(requestId, blockIndex, blockIndex + 1));
                Block block = segments.decode(requestId, blockIndex, buf, at);
                counters.blocksServed.increment();
                if (!future.complete(block)) {
                    counters.blocksServed.decrement();
                }
            } catch (BlockCorruptedException e) {
                counters.corruptBlocks.increment();
                future.completeExceptionally(e);
            } catch (IOException | RuntimeException e) {
                future.completeExceptionally(new IOException("reading block " + blockIndex + " of request "
                        + requestId + " from " + segments.path(requestId) + " failed: " + e, e));
            } finally {
                busyBuffers.decrementAndGet();
                buffers.add(buf);
                running.remove(this);
            }
        }
    }
}
