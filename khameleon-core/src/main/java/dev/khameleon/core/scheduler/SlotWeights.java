package dev.khameleon.core.scheduler;

import dev.khameleon.core.Distribution;
import java.util.Arrays;

/**
 * The per-slot scalars of {@link GreedyScheduler}'s mixture for one prepared batch: the weight
 * {@code W_j(t)} of each component {@code j} at position {@code t}, and the residual group's
 * weight {@code Σ_j W_j(t) ρ_j}. Interpolation is linear in the horizon values, so these
 * {@code m} numbers per slot are all a block's draw needs besides the trees. Not thread-safe.
 */
final class SlotWeights {
    /** {@code perSlot[t · parts + j]}: {@code W_j(t)}, cut to the planning horizon. */
    double[] perSlot = new double[0];
    /** {@code residual[t]}: {@code Σ_j W_j(t) ρ_j}; entry {@code C} is 0. */
    final double[] residual;

    /** Room for a batch of {@code cacheBlocks} slots. */
    SlotWeights(int cacheBlocks) {
        this.residual = new double[cacheBlocks + 1];
    }

    /**
     * Computes the weights of positions {@code fromPos .. C} of the batch of {@code batch} that
     * starts at {@code batchStartSeq}, for the components of {@code mixture}: the discounted suffix
     * sums {@code S_j(t)}, each cut to {@code S_j(t) − c·S_j(t+L)} by the planning horizon
     * ({@link BatchScheduler#beyondHorizonFactor}).
     */
    void prepare(BatchScheduler batch, HorizonMixture mixture, long batchStartSeq, int fromPos) {
        int m = mixture.parts;
        int c = batch.cacheBlocks;
        double discount = batch.discount;
        if (perSlot.length != (c + 1) * m) {
            perSlot = new double[(c + 1) * m];
        }
        double[] w = perSlot;
        double[] hat = new double[m];
        double[] hatNext = new double[m];
        Arrays.fill(w, c * m, (c + 1) * m, 0.0);
        residual[c] = 0.0;
        hatWeights(batch, mixture, batch.slotTime(batchStartSeq + c), hatNext);
        for (int t = c - 1; t >= fromPos; t--) {
            hatWeights(batch, mixture, batch.slotTime(batchStartSeq + t), hat);
            int row = t * m;
            for (int j = 0; j < m; j++) {
                w[row + j] = 0.5 * (hat[j] + discount * hatNext[j]) + discount * w[row + m + j];
            }
            double[] swap = hatNext;
            hatNext = hat;
            hat = swap;
        }
        // Ascending, so that row t + L still holds its suffix sum when row t is cut to the horizon.
        int horizon = batch.horizonSlots();
        double cut = batch.beyondHorizonFactor(horizon);
        double[] rhoJ = mixture.residual;
        for (int t = fromPos; t < c; t++) {
            int row = t * m;
            double rho = 0;
            for (int j = 0; j < m; j++) {
                if (t < c - horizon) {
                    w[row + j] -= cut * w[row + horizon * m + j];
                }
                rho += w[row + j] * rhoJ[j];
            }
            residual[t] = rho;
        }
    }

    /**
     * The weight of each mixture component at {@code millis}: the interpolation weights of the
     * horizons as in {@link Distribution#probabilityAt}, scaled by {@code 1 − α}, and
     * {@code α} = {@link SchedulerConfig#uniformShare} for the uniform component, if any.
     */
    private static void hatWeights(BatchScheduler batch, HorizonMixture mixture, double millis, double[] out) {
        Arrays.fill(out, 0.0);
        Distribution d = batch.distribution;
        int m = mixture.horizons;
        if (millis <= d.horizonMillis(0)) {
            out[0] = 1;
        } else if (millis >= d.horizonMillis(m - 1)) {
            out[m - 1] = 1;
        } else {
            int j = 1;
            while (d.horizonMillis(j) < millis) {
                j++;
            }
            double a = d.horizonMillis(j - 1);
            double b = d.horizonMillis(j);
            double x = (millis - a) / (b - a);
            out[j - 1] = 1 - x;
            out[j] = x;
        }
        if (mixture.parts > m) {
            double uniform = batch.config.uniformShare(millis, d.horizonMillis(m - 1));
            for (int j = 0; j < m; j++) {
                out[j] *= 1 - uniform;
            }
            out[m] = uniform;
        }
    }
}
