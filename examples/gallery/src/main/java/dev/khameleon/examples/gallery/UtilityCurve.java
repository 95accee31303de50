package dev.khameleon.examples.gallery;

import dev.khameleon.core.image.MeasuredUtility;
import dev.khameleon.core.spi.UtilityFunction;

import java.util.Arrays;
import java.util.Locale;

/**
 * The utility curve the gallery measured on its pictures ({@link MeasuredUtility}), as the gallery
 * keeps it: plain numbers, so that the corpus cache can store it and load it without measuring again.
 *
 * @param fractions   the grid of block fractions, ascending, ending at 1
 * @param utilities   the measured utility at each fraction, non-decreasing, ending at 1
 * @param sampleCount how many pictures the curve averages
 */
public record UtilityCurve(double[] fractions, double[] utilities, int sampleCount) {
    /** Validates and copies the arrays. */
    public UtilityCurve {
        if (fractions.length == 0 || fractions.length != utilities.length) {
            throw new IllegalArgumentException("a utility curve needs as many utilities as fractions, at least one, was "
                    + fractions.length + " and " + utilities.length);
        }
        fractions = fractions.clone();
        utilities = utilities.clone();
    }

    /** The curve {@code measured} holds. */
    static UtilityCurve of(MeasuredUtility measured) {
        return new UtilityCurve(measured.fractions(), measured.utilities(), measured.sampleCount());
    }

    @Override
    public double[] fractions() {
        return fractions.clone();
    }

    @Override
    public double[] utilities() {
        return utilities.clone();
    }

    /** The curve as the scheduler's utility, as {@link MeasuredUtility#toUtilityFunction()} makes it. */
    public UtilityFunction toUtilityFunction() {
        return UtilityFunction.tabulated(fractions, utilities);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UtilityCurve other && sampleCount == other.sampleCount
                && Arrays.equals(fractions, other.fractions) && Arrays.equals(utilities, other.utilities);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(fractions) + Arrays.hashCode(utilities) + sampleCount;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("UtilityCurve[samples=").append(sampleCount);
        for (int i = 0; i < fractions.length; i++) {
            sb.append(", ").append(String.format(Locale.ROOT, "%.2f->%.3f", fractions[i], utilities[i]));
        }
        return sb.append(']').toString();
    }
}
