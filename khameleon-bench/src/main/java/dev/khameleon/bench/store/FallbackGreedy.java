package dev.khameleon.bench.store;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;

import java.util.SplittableRandom;
import java.util.function.IntUnaryOperator;

/**
 * The paper's greedy rule in its plain form, over the explicit ids only, with linear utility:
 * slot {@code t} goes to {@code i} with probability proportional to
 * {@code g(B_i) · Σ_j p_j(i)} (all horizons weighted equally). Used by the benchmark only while
 * the project's scheduler ({@code dev.khameleon.core.scheduler}) is not available; the block
 * stream it produces has the same shape: interleaved prefixes of the likely requests.
 */
final class FallbackGreedy implements Scheduler {
    private final int cacheBlocks;
    private final IntUnaryOperator blockCounts;
    private final SplittableRandom random;
    private int[] ids = new int[0];
    private double[] weight = new double[0];
    private final java.util.HashMap<Integer, Integer> scheduled = new java.util.HashMap<>();
    private long nextSeq;

    FallbackGreedy(int cacheBlocks, IntUnaryOperator blockCounts, long seed) {
        this.cacheBlocks = cacheBlocks;
        this.blockCounts = blockCounts;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public void replan(Distribution d, long fromSeq, double slotMillis) {
        java.util.TreeMap<Integer, Double> p = new java.util.TreeMap<>();
        for (int j = 0; j < d.horizonCount(); j++) {
            for (int k = 0; k < d.explicitCount(j); k++) {
                p.merge(d.explicitId(j, k), d.explicitProbability(j, k), Double::sum);
            }
        }
        ids = p.keySet().stream().mapToInt(Integer::intValue).toArray();
        weight = p.values().stream().mapToDouble(Double::doubleValue).toArray();
        nextSeq = fromSeq;
    }

    @Override
    public ScheduleChunk next(int maxBlocks) {
        int[] r = new int[maxBlocks];
        int[] b = new int[maxBlocks];
        int n = 0;
        double[] u = new double[ids.length];
        while (n < maxBlocks) {
            if (nextSeq % cacheBlocks == 0) {
                scheduled.clear();
            }
            double total = 0;
            for (int i = 0; i < ids.length; i++) {
                int have = scheduled.getOrDefault(ids[i], 0);
                int count = blockCounts.applyAsInt(ids[i]);
                u[i] = have < count ? weight[i] / count : 0;
                total += u[i];
            }
            if (total <= 0) {
                break;
            }
            double pick = random.nextDouble() * total;
            int i = 0;
            while (i < ids.length - 1 && (pick -= u[i]) >= 0) {
                i++;
            }
            int have = scheduled.merge(ids[i], 1, Integer::sum) - 1;
            r[n] = ids[i];
            b[n] = have;
            n++;
            nextSeq++;
        }
        return ScheduleChunk.of(nextSeq - n, java.util.Arrays.copyOf(r, n), java.util.Arrays.copyOf(b, n));
    }

    @Override
    public long nextSeq() {
        return nextSeq;
    }

    @Override
    public int cacheBlocks() {
        return cacheBlocks;
    }
}
