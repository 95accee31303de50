package dev.khameleon.core.scheduler;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;
import java.util.Arrays;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The batch, chunk, re-plan and backend-concurrency logic shared by the greedy schedulers; the
 * subclasses only say how to weigh a request for one slot and how to draw one ({@link #sample},
 * for {@link Selection#SAMPLE}) or find the best ({@link #best}, for {@link Selection#MAX_GAIN}).
 *
 * <p>Slot {@code s} belongs to batch {@code s / C} at position {@code t = s mod C} (the ring
 * slot the client writes it to). The per-request block counts {@code B} describe the slots of
 * the current batch planned so far and are reset when planning enters the next batch. Every
 * planned request id of the current and the previous batch is kept in a log of {@code 2C}
 * entries, so {@link #replan} can restore {@code B} for any {@code fromSeq} from the start of
 * the previous batch on ({@link #oldestReplannableSeq()}). In particular every
 * {@code fromSeq >= nextSeq() − C} that is also at least the previous re-plan's
 * {@code fromSeq} is accepted, which is what a server re-planning from its sender's
 * (never decreasing) position needs.
 *
 * <p>Not thread-safe: one thread drives a scheduler at a time (see {@link Scheduler}).
 */
abstract class BatchScheduler implements Scheduler {
    /** How often a draw may be rejected by the backend-concurrency filter before the chunk ends. */
    static final int MAX_REJECTIONS = 64;
    /**
     * Under {@link Selection#MAX_GAIN}, gains at least {@code (1 − TIE_TOLERANCE)} times the
     * largest count as tied with it, so that implementations computing the same gains in a
     * different order agree on the winner (the lowest tied id).
     */
    static final double TIE_TOLERANCE = 1e-12;

    final SchedulerConfig config;
    final BlockClasses classes;
    final int cacheBlocks;
    final int requestCount;
    final double discount;
    final RandomGenerator random;
    private final boolean maxGain;

    /** The planned ids of slots {@code s mod 2C}; {@code null} until planning starts ({@link #start}). */
    private int[] log;
    /** The chunk's backend-concurrency filter; {@code null} without a limit. */
    private final ChunkAdmission admission;
    /**
     * The exact count told for each lazily counted request, by its position in
     * {@link BlockClasses#lazyIds}; -1 while unknown. {@code null} when every count is exact.
     */
    private final int[] knownCounts;

    private long nextSeq;
    /** The highest {@link #nextSeq} ever reached: log entries below {@code highWater − 2C} are gone. */
    private long highWater;
    private long stateBatch;
    private long preparedBatch = -1;

    Distribution distribution;
    private long originSeq;
    private double slotMillis;

    BatchScheduler(SchedulerConfig config) {
        this(config, IdTable.sparseFor(config.requestCount()));
    }

    /** As {@link #BatchScheduler(SchedulerConfig)}, the per-request tables sparse if {@code sparse}. */
    BatchScheduler(SchedulerConfig config, boolean sparse) {
        this.config = Objects.requireNonNull(config, "config");
        this.classes = config.classes();
        this.cacheBlocks = config.cacheBlocks();
        this.requestCount = config.requestCount();
        this.discount = config.discount();
        this.random = config.newRandom();
        this.maxGain = config.selection() == Selection.MAX_GAIN;
        this.admission = config.backendConcurrency() > 0
                ? new ChunkAdmission(config.backendConcurrency(), config.backendLoad(), requestCount, sparse) : null;
        if (classes.lazyIds.length > 0) {
            this.knownCounts = new int[classes.lazyIds.length];
            Arrays.fill(knownCounts, -1);
        } else {
            this.knownCounts = null;
        }
    }

    /**
     * Allocates what planning a batch of {@code C} slots needs, once, on the first {@link #replan},
     * {@link #resume} or {@link #planNext}: a scheduler that has not planned yet holds none of it.
     */
    void startPlanning() {
    }

    private void start() {
        if (log == null) {
            log = new int[2 * cacheBlocks];
            startPlanning();
        }
    }

    /** Gives {@code requestId} its next block; returns that block's index (the old {@code B_i}). */
    abstract int increment(int requestId);

    /** Takes back the last block given to {@code requestId}. */
    abstract void decrement(int requestId);

    /**
     * From now on, lazily counted {@code requestId} weighs its blocks by {@code gains} (of its exact
     * count {@code gains.length − 1}; {@code {0}} when dropped) instead of its class's; the count
     * differs from the bound. {@code B} may exceed the count until a re-plan takes the extra slots
     * back: those blocks weigh 0.
     */
    abstract void countKnown(int requestId, double[] gains);

    /** Sets {@code B} to zero for every request. */
    abstract void resetBatch();

    /** Switches to a new distribution, keeping {@code B}. */
    abstract void install(Distribution distribution);

    /**
     * Computes the slot weights of the batch that starts at {@code batchStartSeq}, for positions
     * {@code fromPos .. C}; position {@code t} happens at {@link #slotTime} of
     * {@code batchStartSeq + t}.
     */
    abstract void prepare(long batchStartSeq, int fromPos);

    /**
     * Draws the request for position {@code t} of the prepared batch with probability
     * {@code u_i(t) / Σ_j u_j(t)}, or returns -1 when every {@code u_i(t)} is zero.
     */
    abstract int sample(int t);

    /**
     * The request with the largest {@code u_i(t)} at position {@code t} of the prepared batch,
     * the lowest id among those within {@link #TIE_TOLERANCE} of it ({@link #tieThreshold}),
     * or -1 when every {@code u_i(t)} is zero; for {@link Selection#MAX_GAIN}.
     */
    abstract int best(int t);

    /** The smallest gain that ties with the largest gain {@code max}. */
    static double tieThreshold(double max) {
        return max - max * TIE_TOLERANCE;
    }

    /**
     * {@code u_i(t)} up to a factor common to all requests: the weight with which
     * {@link #sample} would draw {@code requestId} at position {@code t} of the prepared batch.
     */
    abstract double weight(int t, int requestId);

    /**
     * The exact probability of each request for the next slot, {@code O(n)}; for tests that
     * compare implementations without sampling. All zero when nothing can be planned.
     */
    final double[] nextSlotProbabilities() {
        double[] p = new double[requestCount];
        if (distribution == null) {
            return p;
        }
        int t = enterSlot();
        double total = 0;
        for (int i = 0; i < requestCount; i++) {
            p[i] = weight(t, i);
            total += p[i];
        }
        for (int i = 0; i < requestCount; i++) {
            p[i] = total > 0 ? p[i] / total : 0;
        }
        return p;
    }

    /**
     * Plans {@code requestId} into the next slot, as if {@link #sample} had drawn it; for tests
     * that drive two implementations through the same schedule. Returns the block index.
     */
    final int planNext(int requestId) {
        start();
        enterSlot();
        int b = increment(requestId);
        log[logIndex(nextSeq)] = requestId;
        nextSeq++;
        highWater = Math.max(highWater, nextSeq);
        return b;
    }

    /**
     * The planning horizon in slot steps, {@code L}, for the current slot length; see
     * {@link SchedulerConfig.Builder#planningHorizonMillis}.
     */
    final int horizonSlots() {
        return config.horizonSlots(slotMillis);
    }

    /**
     * The factor {@code c = (1 − κ)·γ^L} that turns suffix sums {@code S(t)} (the whole rest of
     * the batch) into planning-horizon weights {@code S(t) − c·S(t+L)}: the next {@code L}
     * steps in full, the rest with weight {@code κ} = {@link SchedulerConfig#BEYOND_HORIZON_WEIGHT}.
     * Since the result is at least {@code κ·S(t)}, the subtraction loses at most a relative
     * {@code 1e-16 / κ}, is never negative, and is exactly 0 where {@code S(t)} is.
     */
    final double beyondHorizonFactor(int horizonSlots) {
        return (1 - SchedulerConfig.BEYOND_HORIZON_WEIGHT) * Math.pow(discount, horizonSlots);
    }

    /** The time of slot {@code seq} in milliseconds after the current distribution's origin. */
    final double slotTime(long seq) {
        return (seq - originSeq) * slotMillis;
    }

    @Override
    public final void replan(Distribution distribution, long fromSeq, double slotMillis) {
        Objects.requireNonNull(distribution, "distribution");
        if (distribution.requestCount() != requestCount) {
            throw new IllegalArgumentException("distribution has " + distribution.requestCount()
                    + " requests, the scheduler " + requestCount);
        }
        if (!(slotMillis > 0) || !Double.isFinite(slotMillis)) {
            throw new IllegalArgumentException("slotMillis must be finite and > 0, was " + slotMillis);
        }
        long oldest = oldestReplannableSeq();
        if (fromSeq < oldest || fromSeq > nextSeq) {
            throw new IllegalArgumentException("fromSeq " + fromSeq + " out of range [" + oldest + ", " + nextSeq + "]");
        }
        start();
        rewind(fromSeq);
        install(distribution);
        this.distribution = distribution;
        this.originSeq = fromSeq;
        this.slotMillis = slotMillis;
        this.preparedBatch = -1;
    }

    /**
     * The smallest {@code fromSeq} that {@link #replan} accepts now: the start of the previous
     * batch while the log still holds all of it (no slot {@code 2C} or more past that start has
     * been planned), else the start of the current batch.
     */
    final long oldestReplannableSeq() {
        long previous = (stateBatch - 1) * cacheBlocks;
        if (previous < 0) {
            return 0;
        }
        return highWater - previous <= 2L * cacheBlocks ? previous : stateBatch * cacheBlocks;
    }

    private void rewind(long fromSeq) {
        long batchStart = stateBatch * cacheBlocks;
        if (fromSeq >= batchStart) {
            for (long s = nextSeq - 1; s >= fromSeq; s--) {
                int id = log[logIndex(s)];
                if (id >= 0) {
                    decrement(id);
                }
            }
        } else {
            resetBatch();
            stateBatch = fromSeq / cacheBlocks;
            for (long s = stateBatch * cacheBlocks; s < fromSeq; s++) {
                int id = log[logIndex(s)];
                if (id >= 0) {
                    increment(id);
                }
            }
        }
        nextSeq = fromSeq;
    }

    /**
     * Takes back every block of {@code requestIds} planned in the current batch and marks their log
     * entries as forgotten (stored as {@code ~requestId}, which {@link #rewind} skips), so that no
     * later re-plan counts them again. One pass over the batch's log.
     */
    @Override
    public final void invalidate(int[] requestIds) {
        int[] ids = requestIds.clone();
        Arrays.sort(ids);
        if (ids.length > 0 && (ids[0] < 0 || ids[ids.length - 1] >= requestCount)) {
            throw new IllegalArgumentException("request ids must be in [0, " + requestCount + "), were "
                    + ids[0] + " .. " + ids[ids.length - 1]);
        }
        for (long s = stateBatch * cacheBlocks; ids.length > 0 && s < nextSeq; s++) {
            int i = logIndex(s);
            int id = log[i];
            if (id >= 0 && Arrays.binarySearch(ids, id) >= 0) {
                log[i] = ~id;
                decrement(id);
            }
        }
    }

    /**
     * Seeds the log with the ring's request ids (unknown slots are -1, which {@link #rewind}
     * skips) and the block counts {@code B} with the slots of the current batch, after checking
     * that each request's blocks there are {@code 0, 1, 2, …} in slot order, as this scheduler
     * would have planned them.
     */
    @Override
    public final boolean resume(long nextSeq, int[] requestIds, int[] blockIndexes) {
        if (distribution != null || this.nextSeq != 0 || highWater != 0) {
            throw new IllegalStateException("resume must come before any planning");
        }
        if (nextSeq < 0) {
            throw new IllegalArgumentException("nextSeq must be >= 0, was " + nextSeq);
        }
        int slots = (int) Math.min(nextSeq, cacheBlocks);
        if (requestIds.length != slots || blockIndexes.length != slots) {
            throw new IllegalArgumentException("a ring at sequence number " + nextSeq + " has " + slots
                    + " slots, the manifest describes " + requestIds.length + " request ids and "
                    + blockIndexes.length + " block indexes");
        }
        long firstSeq = nextSeq - slots;
        long batchStart = nextSeq / cacheBlocks * cacheBlocks;
        java.util.Map<Integer, Integer> inBatch = new java.util.HashMap<>();
        for (int k = 0; k < slots; k++) {
            int id = requestIds[k];
            if (id == -1) {
                continue;
            }
            if (id < 0 || id >= requestCount) {
                throw new IllegalArgumentException("slot " + (firstSeq + k) + ": request " + id + " out of range [0, "
                        + requestCount + ")");
            }
            int b = blockIndexes[k];
            if (b < 0 || b >= classes.blockCount(id)) {
                throw new IllegalArgumentException("slot " + (firstSeq + k) + ": block " + b + " of request " + id
                        + " out of range [0, " + classes.blockCount(id) + ")");
            }
            if (firstSeq + k >= batchStart) {
                int expected = inBatch.getOrDefault(id, 0);
                if (b != expected) {
                    throw new IllegalArgumentException("slot " + (firstSeq + k) + ": block " + b + " of request " + id
                            + ", but this batch's blocks of a request go 0, 1, 2, … and the next is " + expected);
                }
                inBatch.put(id, expected + 1);
            }
        }
        start();
        Arrays.fill(log, -1);
        for (int k = 0; k < slots; k++) {
            long s = firstSeq + k;
            log[logIndex(s)] = requestIds[k];
            if (s >= batchStart && requestIds[k] >= 0) {
                increment(requestIds[k]);
            }
        }
        this.stateBatch = nextSeq / cacheBlocks;
        this.nextSeq = nextSeq;
        this.highWater = nextSeq;
        return true;
    }

    @Override
    public final void blockCountKnown(int requestId, int blockCount) {
        if (requestId < 0 || requestId >= requestCount) {
            throw new IllegalArgumentException("request id " + requestId + " out of range [0, " + requestCount + ")");
        }
        int bound = classes.blockCount(requestId);
        if (!classes.isLazy(requestId)) {
            if (blockCount != bound) {
                throw new IllegalArgumentException("request " + requestId + " has the exact block count " + bound
                        + ", not " + blockCount);
            }
            return;
        }
        if (blockCount < 0 || blockCount > bound) {
            throw new IllegalArgumentException("block count " + blockCount + " of request " + requestId
                    + " out of range [0, " + bound + "] (its bound)");
        }
        int k = classes.lazyIndex[requestId];
        int known = knownCounts[k];
        if (known == blockCount) {
            return;
        }
        if (known >= 0 && blockCount != 0) {
            throw new IllegalArgumentException("request " + requestId + " was told to have " + known
                    + " blocks, now " + blockCount + ": a count may only change to 0 (dropped)");
        }
        knownCounts[k] = blockCount;
        if (blockCount != bound) {
            countKnown(requestId, config.gainsFor(blockCount));
        }
    }

    private int logIndex(long seq) {
        return (int) (seq % (2L * cacheBlocks));
    }

    @Override
    public final ScheduleChunk next(int maxBlocks) {
        if (maxBlocks < 0) {
            throw new IllegalArgumentException("maxBlocks must be >= 0, was " + maxBlocks);
        }
        long first = nextSeq;
        if (distribution == null || maxBlocks == 0) {
            return ScheduleChunk.empty(first);
        }
        // Grown on demand: a caller may pass a huge maxBlocks and still get a short chunk.
        int[] ids = new int[Math.min(maxBlocks, 1024)];
        int[] blocks = new int[ids.length];
        if (admission != null) {
            admission.startChunk();
        }
        int k = 0;
        while (k < maxBlocks) {
            int t = enterSlot();
            int id = maxGain ? best(t) : sample(t);
            if (id < 0) {
                break;
            }
            if (admission != null && !admission.isFree(id) && !admission.admit(id)) {
                // A deterministic pick would be rejected again and again: the chunk ends and the
                // caller asks again once the backend has room.
                id = maxGain ? -1 : sampleAdmitted(t);
                if (id < 0) {
                    break;
                }
            }
            if (k == ids.length) {
                ids = Arrays.copyOf(ids, (int) Math.min(maxBlocks, 2L * k));
                blocks = Arrays.copyOf(blocks, ids.length);
            }
            ids[k] = id;
            blocks[k] = increment(id);
            log[logIndex(nextSeq)] = id;
            nextSeq++;
            highWater = Math.max(highWater, nextSeq);
            k++;
        }
        return ScheduleChunk.of(first, Arrays.copyOf(ids, k), Arrays.copyOf(blocks, k));
    }

    /**
     * Once the chunk's budget of new requests is spent, draws from the same distribution
     * restricted to requests already in the chunk or being fetched (rejection sampling keeps
     * the conditional distribution exact); -1 if none is found within {@link #MAX_REJECTIONS}.
     */
    private int sampleAdmitted(int t) {
        for (int attempt = 0; attempt < MAX_REJECTIONS; attempt++) {
            int id = sample(t);
            if (id < 0) {
                return -1;
            }
            if (admission.isFree(id)) {
                return id;
            }
        }
        return -1;
    }

    /** Moves the batch state to the batch of {@link #nextSeq}; returns the slot's position. */
    private int enterSlot() {
        long batch = nextSeq / cacheBlocks;
        if (batch != stateBatch) {
            resetBatch();
            stateBatch = batch;
        }
        long batchStart = batch * cacheBlocks;
        int t = (int) (nextSeq - batchStart);
        if (batch != preparedBatch) {
            prepare(batchStart, t);
            preparedBatch = batch;
        }
        return t;
    }

    /** The ints the chunk's admission marks hold: {@code n} when dense, 0 without a concurrency limit. */
    final long chunkMarkInts() {
        return admission == null ? 0 : admission.retainedInts();
    }

    @Override
    public final long nextSeq() {
        return nextSeq;
    }

    @Override
    public final int cacheBlocks() {
        return cacheBlocks;
    }

    /** {@code bs}, the configured chunk size. */
    public final int chunkSize() {
        return config.chunkSize();
    }
}
