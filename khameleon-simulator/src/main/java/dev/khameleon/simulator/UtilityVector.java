package dev.khameleon.simulator;

import dev.khameleon.core.spi.UtilityFunction;
import java.util.Arrays;

/**
 * A utility given per block count, as the paper's prototype gives it: {@code B:U} pairs such as
 * {@code 1:0.537,2:0.599,10:0.726,25:0.849,50:1.0}, the last count being the whole response
 * (utility 1). Between the counts the utility is interpolated linearly in the fraction of blocks,
 * from {@code (0, 0)}. Immutable.
 *
 * @param blocks    the block counts, strictly increasing, the first {@code >= 1}
 * @param utilities the utility at each count, non-decreasing in {@code [0, 1]}, the last 1
 */
public record UtilityVector(int[] blocks, double[] utilities) {

    /** The paper prototype's gallery: 50 blocks, 0.537 for the first ... 1.0 for all 50. */
    public static final UtilityVector PAPER_PROTOTYPE =
            new UtilityVector(new int[] {1, 2, 10, 25, 50}, new double[] {0.537, 0.599, 0.726, 0.849, 1.0});

    /**
     * Validates and copies the arrays.
     *
     * @throws IllegalArgumentException naming {@code --utility-vector} when they break a rule above
     */
    public UtilityVector {
        blocks = blocks.clone();
        utilities = utilities.clone();
        if (blocks.length == 0 || blocks.length != utilities.length) {
            throw new IllegalArgumentException("--utility-vector needs B:U pairs, e.g. 1:0.5,10:0.8,50:1.0");
        }
        for (int i = 0; i < blocks.length; i++) {
            if (blocks[i] < 1 || (i > 0 && blocks[i] <= blocks[i - 1])) {
                throw new IllegalArgumentException("--utility-vector: block counts must be >= 1 and increasing, but "
                        + blocks[i] + " follows " + (i > 0 ? blocks[i - 1] : 0));
            }
            if (!(utilities[i] >= 0 && utilities[i] <= 1)) {
                throw new IllegalArgumentException("--utility-vector: utility " + utilities[i] + " at " + blocks[i]
                        + " blocks is not in [0, 1]");
            }
            if (i > 0 && utilities[i] < utilities[i - 1]) {
                throw new IllegalArgumentException("--utility-vector: utility must not decrease, but " + blocks[i]
                        + " blocks have " + utilities[i] + " after " + utilities[i - 1] + " at " + blocks[i - 1]);
            }
        }
        if (utilities[utilities.length - 1] != 1.0) {
            throw new IllegalArgumentException("--utility-vector: the last count is the whole response and must have"
                    + " utility 1, was " + utilities[utilities.length - 1]);
        }
    }

    /**
     * Parses {@code B:U,B:U,...}.
     *
     * @throws IllegalArgumentException naming {@code --utility-vector} for a malformed or invalid vector
     */
    public static UtilityVector parse(String text) {
        String[] pairs = text.trim().split(",");
        int[] b = new int[pairs.length];
        double[] u = new double[pairs.length];
        for (int i = 0; i < pairs.length; i++) {
            String[] kv = pairs[i].trim().split(":", -1);
            try {
                if (kv.length != 2) {
                    throw new NumberFormatException();
                }
                b[i] = Integer.parseInt(kv[0].trim());
                u[i] = Double.parseDouble(kv[1].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--utility-vector: '" + pairs[i].trim()
                        + "' is not BLOCKS:UTILITY, e.g. 1:0.537,50:1.0");
            }
        }
        return new UtilityVector(b, u);
    }

    /** The blocks of a whole response: the last count. */
    public int blockCount() {
        return blocks[blocks.length - 1];
    }

    /** The vector as a function of the fraction of blocks. */
    public UtilityFunction toUtilityFunction() {
        double[] fractions = new double[blocks.length];
        for (int i = 0; i < blocks.length; i++) {
            fractions[i] = (double) blocks[i] / blockCount();
        }
        return UtilityFunction.tabulated(fractions, utilities);
    }

    @Override
    public int[] blocks() {
        return blocks.clone();
    }

    @Override
    public double[] utilities() {
        return utilities.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UtilityVector v && Arrays.equals(blocks, v.blocks) && Arrays.equals(utilities, v.utilities);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(blocks) + Arrays.hashCode(utilities);
    }

    /** The {@code B:U,...} form that {@link #parse} reads. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < blocks.length; i++) {
            s.append(i > 0 ? "," : "").append(blocks[i]).append(':').append(utilities[i]);
        }
        return s.toString();
    }
}
