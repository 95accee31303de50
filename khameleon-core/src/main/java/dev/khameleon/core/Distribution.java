package dev.khameleon.core;

import java.util.Arrays;

/**
 * A probability distribution over the {@code n} requests at each of {@code m} horizons
 * {@code Δ_1 < … < Δ_m} (milliseconds after the prediction was made).
 *
 * <p>At each horizon the distribution is a sparse <em>explicit part</em> (ids with their
 * probability) plus a <em>uniform residual</em> mass shared equally by every id that is not
 * explicit at that horizon. Probability between horizons is linearly interpolated; before
 * {@code Δ_1} it is the {@code Δ_1} value and after {@code Δ_m} the {@code Δ_m} value.
 *
 * <p>Instances are immutable and validated on construction: probabilities and residuals are
 * finite and non-negative, each horizon's total mass is at most {@code 1 + }{@link #MASS_TOLERANCE},
 * ids are in range and not repeated, horizons strictly increase. A violation is an
 * {@link IllegalArgumentException} whose message names the problem.
 */
public final class Distribution {
    /** Slack allowed above a total mass of 1, for floating-point rounding. */
    public static final double MASS_TOLERANCE = 1e-6;

    private final int requestCount;
    private final long[] horizonsMillis;
    private final int[][] ids;
    private final double[][] probabilities;
    private final double[] residualMass;

    private Distribution(int requestCount, long[] horizonsMillis, int[][] ids,
                         double[][] probabilities, double[] residualMass) {
        this.requestCount = requestCount;
        this.horizonsMillis = horizonsMillis;
        this.ids = ids;
        this.probabilities = probabilities;
        this.residualMass = residualMass;
    }

    /**
     * Creates a distribution from per-horizon arrays, copying them. Ids of each horizon may come
     * in any order; they are stored sorted.
     *
     * @param requestCount   {@code n}, the number of requests
     * @param horizonsMillis the horizons, strictly increasing, non-negative
     * @param ids            {@code ids[j]}: the explicit ids at horizon {@code j}
     * @param probabilities  {@code probabilities[j][k]}: the probability of {@code ids[j][k]}
     * @param residualMass   {@code residualMass[j]}: the mass shared by the non-explicit ids
     * @throws IllegalArgumentException if any input is invalid; the message names the problem
     */
    public static Distribution of(int requestCount, long[] horizonsMillis, int[][] ids,
                                  double[][] probabilities, double[] residualMass) {
        if (requestCount < 1) {
            throw new IllegalArgumentException("requestCount must be >= 1, was " + requestCount);
        }
        int m = horizonsMillis.length;
        if (m < 1) {
            throw new IllegalArgumentException("at least one horizon is required");
        }
        for (int j = 0; j < m; j++) {
            if (horizonsMillis[j] < 0) {
                throw new IllegalArgumentException("horizon " + j + " is negative: " + horizonsMillis[j] + " ms");
            }
            if (j > 0 && horizonsMillis[j] <= horizonsMillis[j - 1]) {
                throw new IllegalArgumentException("horizons must be strictly increasing, but horizon " + j
                        + " (" + horizonsMillis[j] + " ms) <= horizon " + (j - 1) + " (" + horizonsMillis[j - 1] + " ms)");
            }
        }
        if (ids.length != m || probabilities.length != m || residualMass.length != m) {
            throw new IllegalArgumentException("expected " + m + " horizons of ids, probabilities and residuals, got "
                    + ids.length + ", " + probabilities.length + " and " + residualMass.length);
        }
        int[][] sortedIds = new int[m][];
        double[][] sortedProbs = new double[m][];
        for (int j = 0; j < m; j++) {
            if (ids[j].length != probabilities[j].length) {
                throw new IllegalArgumentException("horizon " + j + ": " + ids[j].length + " ids but "
                        + probabilities[j].length + " probabilities");
            }
            double residual = residualMass[j];
            if (!Double.isFinite(residual) || residual < 0) {
                throw new IllegalArgumentException("horizon " + j + ": residual mass must be finite and >= 0, was " + residual);
            }
            int k = ids[j].length;
            long[] packed = new long[k];
            double total = residual;
            for (int e = 0; e < k; e++) {
                int id = ids[j][e];
                double p = probabilities[j][e];
                if (id < 0 || id >= requestCount) {
                    throw new IllegalArgumentException("horizon " + j + ": request id " + id
                            + " out of range [0, " + requestCount + ")");
                }
                if (!Double.isFinite(p) || p < 0) {
                    throw new IllegalArgumentException("horizon " + j + ": probability of request " + id
                            + " must be finite and >= 0, was " + p);
                }
                total += p;
                packed[e] = ((long) id << 32) | e;
            }
            if (total > 1 + MASS_TOLERANCE) {
                throw new IllegalArgumentException("horizon " + j + ": total probability mass " + total + " exceeds 1");
            }
            Arrays.sort(packed);
            sortedIds[j] = new int[k];
            sortedProbs[j] = new double[k];
            for (int e = 0; e < k; e++) {
                int id = (int) (packed[e] >>> 32);
                if (e > 0 && id == sortedIds[j][e - 1]) {
                    throw new IllegalArgumentException("horizon " + j + ": request id " + id + " is listed twice");
                }
                sortedIds[j][e] = id;
                sortedProbs[j][e] = probabilities[j][(int) packed[e]];
            }
            if (k == requestCount && residual > MASS_TOLERANCE) {
                throw new IllegalArgumentException("horizon " + j + ": every request is explicit, yet residual mass is "
                        + residual);
            }
        }
        return new Distribution(requestCount, horizonsMillis.clone(), sortedIds, sortedProbs, residualMass.clone());
    }

    /** The uniform distribution: every request has probability {@code 1/n} at every horizon. */
    public static Distribution uniform(int requestCount, long... horizonsMillis) {
        int m = horizonsMillis.length;
        double[] residual = new double[m];
        Arrays.fill(residual, 1.0);
        return of(requestCount, horizonsMillis, new int[m][0], new double[m][0], residual);
    }

    /** All mass on {@code requestId} at every horizon. */
    public static Distribution point(int requestCount, int requestId, long... horizonsMillis) {
        int m = horizonsMillis.length;
        int[][] ids = new int[m][];
        double[][] probs = new double[m][];
        for (int j = 0; j < m; j++) {
            ids[j] = new int[] {requestId};
            probs[j] = new double[] {1.0};
        }
        return of(requestCount, horizonsMillis, ids, probs, new double[m]);
    }

    /** Starts a builder for a distribution over {@code requestCount} requests at the given horizons. */
    public static Builder builder(int requestCount, long... horizonsMillis) {
        return new Builder(requestCount, horizonsMillis);
    }

    /** {@code n}, the number of requests. */
    public int requestCount() {
        return requestCount;
    }

    /** {@code m}, the number of horizons. */
    public int horizonCount() {
        return horizonsMillis.length;
    }

    /** The horizon {@code j} in milliseconds. */
    public long horizonMillis(int j) {
        return horizonsMillis[j];
    }

    /** A copy of all horizons in milliseconds. */
    public long[] horizonsMillis() {
        return horizonsMillis.clone();
    }

    /** The number of explicit ids at horizon {@code j}. */
    public int explicitCount(int j) {
        return ids[j].length;
    }

    /** The {@code k}-th explicit id at horizon {@code j} (ids ascend with {@code k}). */
    public int explicitId(int j, int k) {
        return ids[j][k];
    }

    /** The probability of the {@code k}-th explicit id at horizon {@code j}. */
    public double explicitProbability(int j, int k) {
        return probabilities[j][k];
    }

    /** A copy of the explicit ids at horizon {@code j}, ascending. */
    public int[] explicitIds(int j) {
        return ids[j].clone();
    }

    /** A copy of the explicit probabilities at horizon {@code j}, aligned with {@link #explicitIds}. */
    public double[] explicitProbabilities(int j) {
        return probabilities[j].clone();
    }

    /** The mass shared by the non-explicit ids at horizon {@code j}. */
    public double residualMass(int j) {
        return residualMass[j];
    }

    /**
     * The probability of each single non-explicit id at horizon {@code j}: the residual mass
     * divided by the number of non-explicit ids (0 when every id is explicit).
     */
    public double residualPerRequest(int j) {
        int others = requestCount - ids[j].length;
        return others == 0 ? 0.0 : residualMass[j] / others;
    }

    /** The probability of {@code requestId} at horizon {@code j}, in {@code O(log K)}. */
    public double probability(int j, int requestId) {
        if (requestId < 0 || requestId >= requestCount) {
            throw new IllegalArgumentException("request id " + requestId + " out of range [0, " + requestCount + ")");
        }
        int k = Arrays.binarySearch(ids[j], requestId);
        return k >= 0 ? probabilities[j][k] : residualPerRequest(j);
    }

    /**
     * The probability of {@code requestId} at {@code millis} after the prediction, linearly
     * interpolated between horizons and held constant outside them.
     */
    public double probabilityAt(double millis, int requestId) {
        int m = horizonsMillis.length;
        if (millis <= horizonsMillis[0]) {
            return probability(0, requestId);
        }
        if (millis >= horizonsMillis[m - 1]) {
            return probability(m - 1, requestId);
        }
        int j = 1;
        while (horizonsMillis[j] < millis) {
            j++;
        }
        double a = horizonsMillis[j - 1];
        double b = horizonsMillis[j];
        double w = (millis - a) / (b - a);
        return (1 - w) * probability(j - 1, requestId) + w * probability(j, requestId);
    }

    /** The total mass at horizon {@code j}: explicit probabilities plus the residual. */
    public double totalMass(int j) {
        double total = residualMass[j];
        for (double p : probabilities[j]) {
            total += p;
        }
        return total;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Distribution[n=").append(requestCount);
        for (int j = 0; j < horizonsMillis.length; j++) {
            sb.append(", ").append(horizonsMillis[j]).append("ms: ").append(ids[j].length)
                    .append(" explicit + residual ").append(residualMass[j]);
        }
        return sb.append(']').toString();
    }

    /**
     * Accumulates explicit probabilities and residuals horizon by horizon; {@link #build()}
     * validates everything at once. Not thread-safe.
     */
    public static final class Builder {
        private final int requestCount;
        private final long[] horizonsMillis;
        private final IntDoubleList[] explicit;
        private final double[] residual;

        private Builder(int requestCount, long[] horizonsMillis) {
            this.requestCount = requestCount;
            this.horizonsMillis = horizonsMillis.clone();
            this.explicit = new IntDoubleList[horizonsMillis.length];
            for (int j = 0; j < explicit.length; j++) {
                explicit[j] = new IntDoubleList();
            }
            this.residual = new double[horizonsMillis.length];
        }

        /** Gives {@code requestId} probability {@code p} at horizon {@code j}. */
        public Builder explicit(int j, int requestId, double p) {
            checkHorizon(j);
            explicit[j].add(requestId, p);
            return this;
        }

        /** Sets the residual mass shared by the non-explicit ids at horizon {@code j}. */
        public Builder residual(int j, double mass) {
            checkHorizon(j);
            residual[j] = mass;
            return this;
        }

        /** Validates and builds; see {@link Distribution#of}. */
        public Distribution build() {
            int m = horizonsMillis.length;
            int[][] ids = new int[m][];
            double[][] probs = new double[m][];
            for (int j = 0; j < m; j++) {
                ids[j] = explicit[j].keys();
                probs[j] = explicit[j].values();
            }
            return of(requestCount, horizonsMillis, ids, probs, residual);
        }

        private void checkHorizon(int j) {
            if (j < 0 || j >= horizonsMillis.length) {
                throw new IllegalArgumentException("horizon index " + j + " out of range [0, " + horizonsMillis.length + ")");
            }
        }
    }

    private static final class IntDoubleList {
        private int[] keys = new int[8];
        private double[] values = new double[8];
        private int size;

        void add(int key, double value) {
            if (size == keys.length) {
                keys = Arrays.copyOf(keys, size * 2);
                values = Arrays.copyOf(values, size * 2);
            }
            keys[size] = key;
            values[size] = value;
            size++;
        }

        int[] keys() {
            return Arrays.copyOf(keys, size);
        }

        double[] values() {
            return Arrays.copyOf(values, size);
        }
    }
}
