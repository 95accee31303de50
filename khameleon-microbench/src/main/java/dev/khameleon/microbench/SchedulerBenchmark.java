package dev.khameleon.microbench;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.core.scheduler.Selection;
import dev.khameleon.core.spi.Scheduler;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The time to schedule one full batch of {@code C} blocks from a fresh distribution (the
 * re-plan at the batch start included), for the fast greedy scheduler against the paper's
 * Listing 1, over the paper's Figure 16 grid and beyond it for the fast one. Divide by
 * {@code cacheBlocks} for the cost per block.
 *
 * <p>Each invocation re-plans at the start of the next batch with the same distribution and
 * plans it in chunks of 100 blocks; when {@code requests × blocksPerRequest < cacheBlocks} the
 * batch ends early (everything is scheduled) and a fresh scheduler is set up for the next
 * invocation. The distribution has 4 horizons (50, 150, 250, 500 ms) with the same
 * {@code max(1, explicitFraction × requests)} explicit ids at each (random weights), and a
 * residual of 20 % of the mass shared by the other ids; one slot lasts 0.5 ms.
 * {@code REFERENCE} materialises {@code n × C} doubles and is refused above 6·10^7 of them
 * (just above 10^4 requests at C = 5000); pick its grid with {@code -p}. {@code selection} is
 * {@code SAMPLE} (the paper's rule) unless {@code -p selection=SAMPLE,MAX_GAIN} compares it with
 * the deterministic rule, whose fast implementation scans the explicit ids for every block.
 * {@code counts} is {@code EXACT} (every count known up front) unless {@code -p counts=EXACT,TOLD}
 * adds the lazily counted case: every count is a bound of {@code blocksPerRequest}, and each
 * request's exact count, {@code 1 + id mod blocksPerRequest}, is told before the first batch, so
 * every request below its bound is drawn from the learned class of its exact count.
 *
 * <p>Run (the whole default grid takes many hours; choose a subset):
 * <pre>
 * mvn -B -q package -pl khameleon-microbench -am -DskipTests
 * java -jar khameleon-microbench/target/benchmarks.jar SchedulerBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s \
 *     -p implementation=FAST,REFERENCE -p requests=10000 -p cacheBlocks=5000 \
 *     -p blocksPerRequest=10 -p explicitFraction=1
 * </pre>
 */
@State(Scope.Benchmark)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx8g"})
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class SchedulerBenchmark extends MicroBenchmark {
    /** The reference's {@code n × C} matrix limit, in doubles. */
    static final long REFERENCE_CELL_LIMIT = 60_000_000L;
    static final long[] HORIZONS = Horizons.defaults().toArray();
    static final double SLOT_MILLIS = 0.5;
    static final int CHUNK = 100;

    /** The two schedulers compared. */
    public enum Implementation {
        FAST(Schedulers::greedy),
        REFERENCE(Schedulers::reference);

        final Function<SchedulerConfig, Scheduler> factory;

        Implementation(Function<SchedulerConfig, Scheduler> factory) {
            this.factory = factory;
        }
    }

    @Param({"FAST", "REFERENCE"})
    public Implementation implementation;

    /** The selection rule; only the default unless asked for with {@code -p selection=SAMPLE,MAX_GAIN}. */
    @Param({"SAMPLE"})
    public Selection selection;

    @Param({"10", "100", "1000", "10000", "100000", "1000000"})
    public int requests;

    @Param({"100", "500", "5000"})
    public int cacheBlocks;

    @Param({"10", "100", "1000", "10000"})
    public int blocksPerRequest;

    @Param({"1", "0.25", "0.125", "0.01", "0.001"})
    public double explicitFraction;

    /** How block counts are known. */
    public enum Counts {
        /** Every count exact from the start. */
        EXACT,
        /** Every count a bound, the exact counts told before planning. */
        TOLD
    }

    /** Exact counts unless asked for with {@code -p counts=EXACT,TOLD}. */
    @Param({"EXACT"})
    public Counts counts;

    private SchedulerConfig config;
    private Distribution distribution;
    private Scheduler scheduler;

    @Setup(Level.Trial)
    public void setUp() {
        if (implementation == Implementation.REFERENCE && (long) requests * (cacheBlocks + 1) > REFERENCE_CELL_LIMIT) {
            throw new IllegalStateException("REFERENCE would materialise " + (long) requests * (cacheBlocks + 1)
                    + " doubles (limit " + REFERENCE_CELL_LIMIT + "); skipped");
        }
        SchedulerConfig.Builder b = SchedulerConfig.builder().cacheBlocks(cacheBlocks).requestCount(requests)
                .blocksPerRequest(blocksPerRequest).chunkSize(CHUNK).selection(selection).seed(42);
        if (counts == Counts.TOLD) {
            b.lazyBlockCounts(id -> true);
        }
        config = b.build();
        distribution = distribution(requests, explicitFraction, new SplittableRandom(7));
        scheduler = newScheduler();
    }

    private Scheduler newScheduler() {
        Scheduler s = implementation.factory.apply(config);
        if (counts == Counts.TOLD) {
            for (int id = 0; id < requests; id++) {
                s.blockCountKnown(id, 1 + id % blocksPerRequest);
            }
        }
        return s;
    }

    /** After an early-ended batch the next one could not start fresh: begin from a new scheduler. */
    @Setup(Level.Invocation)
    public void startAtBatchBoundary() {
        if (scheduler.nextSeq() % cacheBlocks != 0) {
            scheduler = newScheduler();
        }
    }

    /** Re-plans at the batch start and plans the whole batch; returns the number of blocks planned. */
    @Benchmark
    public int scheduleOneBatch() {
        Scheduler s = scheduler;
        s.replan(distribution, s.nextSeq(), SLOT_MILLIS);
        int planned = 0;
        while (planned < cacheBlocks) {
            ScheduleChunk chunk = s.next(Math.min(CHUNK, cacheBlocks - planned));
            if (chunk.isEmpty()) {
                break;
            }
            planned += chunk.size();
        }
        return planned;
    }

    static Distribution distribution(int n, double explicitFraction, SplittableRandom rng) {
        int k = (int) Math.max(1, Math.min(n, Math.round(explicitFraction * n)));
        int[] ids = sample(n, k, rng);
        double residual = k < n ? 0.2 : 0.0;
        int m = HORIZONS.length;
        int[][] idsPerHorizon = new int[m][];
        double[][] probabilities = new double[m][];
        double[] residuals = new double[m];
        for (int j = 0; j < m; j++) {
            double[] w = new double[k];
            double sum = 0;
            for (int e = 0; e < k; e++) {
                double r = rng.nextDouble();
                w[e] = r * r * r + 1e-3;
                sum += w[e];
            }
            for (int e = 0; e < k; e++) {
                w[e] *= (1 - residual) / sum;
            }
            idsPerHorizon[j] = ids;
            probabilities[j] = w;
            residuals[j] = residual;
        }
        return Distribution.of(n, HORIZONS, idsPerHorizon, probabilities, residuals);
    }

    /** {@code k} distinct ids of {@code 0..n-1} by a partial Fisher–Yates shuffle. */
    private static int[] sample(int n, int k, SplittableRandom rng) {
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i;
        }
        for (int i = 0; i < k; i++) {
            int j = i + rng.nextInt(n - i);
            int t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        return java.util.Arrays.copyOf(all, k);
    }
}
