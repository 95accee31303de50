package dev.khameleon.loadtest.store;

import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.Scheduler;

import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntUnaryOperator;

/**
 * Block streams a Khameleon server would push to {@code users} independent users, recorded
 * ahead of the replay so every strategy replays the same fetches.
 *
 * <p>Method: user {@code u} browses gallery page {@code u mod pages} (a grid of
 * {@code layout.requestCount()} responses) and follows pointer trace segment {@code u mod segments} (Balabit
 * sessions cut by the simulator's {@link dev.khameleon.simulator.trace.BalabitReader}, idle gaps
 * shortened), its screen scaled onto the grid. Every {@code predictionMillis} of trace time the
 * pointer's position gives a Gaussian
 * distribution (σ of 1, 1.5, 2, 3 cells at horizons 50, 150, 250, 500 ms, explicit within
 * 2.5σ, 2 % uniform residual) that is handed to the scheduler with
 * {@link Scheduler#replan}; the scheduler then plans the slots one prediction interval holds at
 * the configured bandwidth. Immutable after construction.
 */
final class RecordedSchedules {
    static final long[] HORIZONS = Horizons.defaults().toArray();
    private static final double[] SIGMA_CELLS = {1.0, 1.5, 2.0, 3.0};
    private static final double RESIDUAL = 0.02;

    /** Makes a fresh scheduler for one user. */
    interface SchedulerFactory {
        Scheduler create(int requestCount, IntUnaryOperator blockCounts, int cacheBlocks, long seed);
    }

    private final int[][] requests;
    private final int[][] blocks;

    private RecordedSchedules(int[][] requests, int[][] blocks) {
        this.requests = requests;
        this.blocks = blocks;
    }

    static RecordedSchedules record(List<PointerTrace> traces, GridLayout layout, int pages,
            IntUnaryOperator blockCounts, SchedulerFactory factory, int users, int blocksPerUser, int cacheBlocks,
            double slotMillis, double predictionMillis, long seed) {
        int[][] requests = new int[users][blocksPerUser];
        int[][] blocks = new int[users][blocksPerUser];
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = layout.requestCount();
        for (int u = 0; u < users; u++) {
            PointerTrace trace = traces.get(u % traces.size());
            double sx = layout.cols() * layout.bounds(0).width() / trace.screenWidth();
            double sy = layout.rows() * layout.bounds(0).height() / trace.screenHeight();
            double t = trace.timeMillis(0);
            // User u browses gallery page u mod pages: responses page·n .. page·n + n - 1.
            int base = (u % pages) * n;
            Scheduler scheduler = factory.create(n, id -> blockCounts.applyAsInt(base + id), cacheBlocks,
                    rnd.nextLong());
            double slotBudget = 0;
            int filled = 0;
            while (filled < blocksPerUser) {
                int e = Math.max(0, trace.indexAt(t));
                scheduler.replan(gaussian(layout, trace.x(e) * sx, trace.y(e) * sy), scheduler.nextSeq(), slotMillis);
                slotBudget += predictionMillis / slotMillis;
                while (slotBudget >= 1 && filled < blocksPerUser) {
                    int want = (int) Math.min(Math.min(100, slotBudget), blocksPerUser - filled);
                    ScheduleChunk chunk = scheduler.next(want);
                    if (chunk.isEmpty()) {
                        slotBudget = 0;
                        break;
                    }
                    for (int k = 0; k < chunk.size(); k++) {
                        requests[u][filled] = base + chunk.requestId(k);
                        blocks[u][filled] = chunk.blockIndex(k);
                        filled++;
                    }
                    slotBudget -= chunk.size();
                }
                t += predictionMillis;
            }
        }
        return new RecordedSchedules(requests, blocks);
    }

    /** The Gaussian-over-cells distribution around pointer position {@code (x, y)}. */
    static Distribution gaussian(GridLayout layout, double x, double y) {
        Distribution.Builder b = Distribution.builder(layout.requestCount(), HORIZONS);
        int rows = layout.rows();
        int cols = layout.cols();
        double cx = Math.max(0, Math.min(cols - 1e-9, (x - layout.originX()) / cellWidth(layout)));
        double cy = Math.max(0, Math.min(rows - 1e-9, (y - layout.originY()) / cellHeight(layout)));
        for (int j = 0; j < HORIZONS.length; j++) {
            double s = SIGMA_CELLS[j];
            int reach = (int) Math.ceil(2.5 * s);
            int c0 = (int) cx;
            int r0 = (int) cy;
            double total = 0;
            int minR = Math.max(0, r0 - reach);
            int maxR = Math.min(rows - 1, r0 + reach);
            int minC = Math.max(0, c0 - reach);
            int maxC = Math.min(cols - 1, c0 + reach);
            double[][] w = new double[maxR - minR + 1][maxC - minC + 1];
            for (int r = minR; r <= maxR; r++) {
                for (int c = minC; c <= maxC; c++) {
                    double dx = c + 0.5 - cx;
                    double dy = r + 0.5 - cy;
                    double v = Math.exp(-(dx * dx + dy * dy) / (2 * s * s));
                    w[r - minR][c - minC] = v;
                    total += v;
                }
            }
            double explicitMass = layout.requestCount() > w.length * w[0].length ? 1 - RESIDUAL : 1;
            for (int r = minR; r <= maxR; r++) {
                for (int c = minC; c <= maxC; c++) {
                    b.explicit(j, r * cols + c, explicitMass * w[r - minR][c - minC] / total);
                }
            }
            b.residual(j, (1 - explicitMass) * 0.999999);
        }
        return b.build();
    }

    private static double cellWidth(GridLayout layout) {
        return layout.bounds(0).width();
    }

    private static double cellHeight(GridLayout layout) {
        return layout.bounds(0).height();
    }

    int users() {
        return requests.length;
    }

    int length() {
        return requests[0].length;
    }

    int request(int user, int k) {
        return requests[user][k];
    }

    int block(int user, int k) {
        return blocks[user][k];
    }

    /** Distinct (request, block) pairs over all users, for reporting how much the users overlap. */
    long distinctBlocks() {
        java.util.HashSet<Long> seen = new java.util.HashSet<>();
        for (int u = 0; u < requests.length; u++) {
            for (int k = 0; k < requests[u].length; k++) {
                seen.add(((long) requests[u][k] << 32) | blocks[u][k]);
            }
        }
        return seen.size();
    }
}
