package dev.khameleon.simulator;

import dev.khameleon.core.Distribution;
import java.util.Arrays;

/**
 * Re-bases a distribution's time origin {@code lagMillis} later: the result's probability at
 * time {@code t} equals the input's at {@code t + lagMillis}. Used (optionally) to line up a
 * prediction made on the client at {@code t0} with the slot the server plans first, which
 * lands on the client about one round trip later. Horizons that fall before the new origin are
 * replaced by one horizon at 0 holding the interpolated value there. Stateless.
 */
final class HorizonShift {
    private HorizonShift() {
    }

    static Distribution shift(Distribution d, double lagMillis) {
        if (!(lagMillis > 0)) {
            return d;
        }
        int m = d.horizonCount();
        int firstKept = 0;
        while (firstKept < m && d.horizonMillis(firstKept) - lagMillis <= 0) {
            firstKept++;
        }
        if (firstKept == 0) {
            long[] h = new long[m];
            for (int j = 0; j < m; j++) {
                h[j] = d.horizonMillis(j) - Math.round(lagMillis);
            }
            if (h[0] <= 0 || !strictlyIncreasing(h)) {
                return d;
            }
            int[][] ids = new int[m][];
            double[][] probs = new double[m][];
            double[] residual = new double[m];
            for (int j = 0; j < m; j++) {
                ids[j] = d.explicitIds(j);
                probs[j] = d.explicitProbabilities(j);
                residual[j] = d.residualMass(j);
            }
            return Distribution.of(d.requestCount(), h, ids, probs, residual);
        }
        // Horizon 0 is the value at the lag: between horizons firstKept-1 and firstKept (or the last).
        int a = firstKept - 1;
        int b = Math.min(firstKept, m - 1);
        double w = a == b ? 0 : (lagMillis - d.horizonMillis(a)) / (double) (d.horizonMillis(b) - d.horizonMillis(a));
        int kept = m - firstKept;
        long[] h = new long[1 + kept];
        int[][] ids = new int[1 + kept][];
        double[][] probs = new double[1 + kept][];
        double[] residual = new double[1 + kept];
        int[] union = union(d.explicitIds(a), d.explicitIds(b));
        double[] p = new double[union.length];
        double explicitSum = 0;
        for (int k = 0; k < union.length; k++) {
            p[k] = (1 - w) * d.probability(a, union[k]) + w * d.probability(b, union[k]);
            explicitSum += p[k];
        }
        double perId = (1 - w) * d.residualPerRequest(a) + w * d.residualPerRequest(b);
        ids[0] = union;
        probs[0] = p;
        residual[0] = Math.max(0, Math.min(perId * (d.requestCount() - union.length), 1 - explicitSum));
        h[0] = 0;
        for (int j = 0; j < kept; j++) {
            int src = firstKept + j;
            h[1 + j] = Math.max(h[j] + 1, d.horizonMillis(src) - Math.round(lagMillis));
            ids[1 + j] = d.explicitIds(src);
            probs[1 + j] = d.explicitProbabilities(src);
            residual[1 + j] = d.residualMass(src);
        }
        return Distribution.of(d.requestCount(), h, ids, probs, residual);
    }

    private static boolean strictlyIncreasing(long[] h) {
        for (int j = 1; j < h.length; j++) {
            if (h[j] <= h[j - 1]) {
                return false;
            }
        }
        return true;
    }

    private static int[] union(int[] x, int[] y) {
        int[] out = new int[x.length + y.length];
        int i = 0;
        int j = 0;
        int n = 0;
        while (i < x.length || j < y.length) {
            int v;
            if (j >= y.length || (i < x.length && x[i] < y[j])) {
                v = x[i++];
            } else if (i >= x.length || y[j] < x[i]) {
                v = y[j++];
            } else {
                v = x[i++];
                j++;
            }
            out[n++] = v;
        }
        return Arrays.copyOf(out, n);
    }
}
