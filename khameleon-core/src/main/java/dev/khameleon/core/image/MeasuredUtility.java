package dev.khameleon.core.image;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.UtilityFunction;

import java.awt.image.BufferedImage;
import java.util.Arrays;
import java.util.List;

/**
 * A utility curve measured on sample images: at each fraction {@code f} of the blocks, the mean
 * over the samples of the SSIM between the decoded prefix of {@code f·N} blocks and the decoded
 * full image. This is the "utility measured, not guessed" of the design: feed
 * {@link #toUtilityFunction()} to the scheduler.
 *
 * <p>How a curve is made: each sample is encoded; for {@code k = 1..N} its prefix of {@code k}
 * blocks is decoded (a prefix that does not decode counts as 0) and compared with the full
 * decode, giving points {@code (k/N, SSIM)} joined piecewise-linearly from {@code (0, 0)}. The
 * curves are sampled on a common grid {@code 1/points, 2/points, ..., 1}, averaged, clamped to
 * {@code [0, 1]} and made non-decreasing (a running maximum; mid-scan truncation can dip a
 * prefix's score slightly below a shorter one's). The value at 1 is exactly 1.
 *
 * <p>Immutable and thread-safe; accessors return copies.
 */
public final class MeasuredUtility {
    private final double[] fractions;
    private final double[] utilities;
    private final int sampleCount;

    private MeasuredUtility(double[] fractions, double[] utilities, int sampleCount) {
        this.fractions = fractions;
        this.utilities = utilities;
        this.sampleCount = sampleCount;
    }

    /**
     * A curve measured earlier, from the numbers {@link #fractions()}, {@link #utilities()} and
     * {@link #sampleCount()} returned (for example, read back from a cache), so it need not be
     * measured again. Copies the arrays.
     *
     * @throws IllegalArgumentException unless the fractions rise strictly within {@code (0, 1]} and
     *     end at 1, the utilities are as many, within {@code [0, 1]}, non-decreasing and end at 1,
     *     and {@code sampleCount >= 1}
     */
    public static MeasuredUtility of(double[] fractions, double[] utilities, int sampleCount) {
        if (fractions.length == 0 || fractions.length != utilities.length) {
            throw new IllegalArgumentException("a measured utility needs as many utilities as fractions, at least one,"
                    + " was " + fractions.length + " and " + utilities.length);
        }
        if (sampleCount < 1) {
            throw new IllegalArgumentException("sampleCount must be >= 1, was " + sampleCount);
        }
        for (int i = 0; i < fractions.length; i++) {
            double f = fractions[i];
            double u = utilities[i];
            if (!(f > (i == 0 ? 0 : fractions[i - 1]) && f <= 1)) {
                throw new IllegalArgumentException("fraction " + i + " is " + f + ": fractions must rise within (0, 1]");
            }
            if (!(u >= (i == 0 ? 0 : utilities[i - 1]) && u <= 1)) {
                throw new IllegalArgumentException("utility " + i + " is " + u
                        + ": utilities must be non-decreasing within [0, 1]");
            }
        }
        if (fractions[fractions.length - 1] != 1 || utilities[utilities.length - 1] != 1) {
            throw new IllegalArgumentException("a measured utility ends at fraction 1 with utility 1");
        }
        return new MeasuredUtility(fractions.clone(), utilities.clone(), sampleCount);
    }

    /**
     * Measures {@code encoder}'s prefix utility on {@code samples} with {@link Ssim#standard()}.
     *
     * @throws IllegalArgumentException if {@code samples} is empty, {@code points < 1}, or a
     *     sample cannot be encoded
     */
    public static MeasuredUtility measure(ProgressiveJpegEncoder encoder, List<BufferedImage> samples, int points) {
        return measure(encoder, samples, points, Ssim.standard());
    }

    /**
     * Measures {@code encoder}'s prefix utility on {@code samples} with the given SSIM.
     *
     * @throws IllegalArgumentException if {@code samples} is empty, {@code points < 1}, or a
     *     sample cannot be encoded
     */
    public static MeasuredUtility measure(ProgressiveJpegEncoder encoder, List<BufferedImage> samples, int points,
                                          Ssim ssim) {
        if (samples.isEmpty()) {
            throw new IllegalArgumentException("samples must not be empty");
        }
        if (points < 1) {
            throw new IllegalArgumentException("points must be >= 1, was " + points);
        }
        double[] grid = new double[points];
        for (int i = 0; i < points; i++) {
            grid[i] = (i + 1) / (double) points;
        }
        double[] sum = new double[points];
        for (BufferedImage image : samples) {
            double[] curve = prefixSsim(encoder, image, ssim);
            for (int i = 0; i < points; i++) {
                sum[i] += interpolate(curve, grid[i]);
            }
        }
        double[] mean = new double[points];
        double best = 0;
        for (int i = 0; i < points; i++) {
            best = Math.max(best, Math.min(1.0, Math.max(0.0, sum[i] / samples.size())));
            mean[i] = best;
        }
        mean[points - 1] = 1.0;
        return new MeasuredUtility(grid, mean, samples.size());
    }

    /**
     * The SSIM of each block prefix of one image against its full decode: entry {@code k} is
     * the score of the first {@code k} blocks, entry 0 is 0 and the last entry is 1.
     */
    static double[] prefixSsim(ProgressiveJpegEncoder encoder, BufferedImage image, Ssim ssim) {
        List<Block> blocks = encoder.encode(0, image);
        int n = blocks.size();
        BufferedImage full = ProgressiveJpegEncoder.decode(ProgressiveJpegEncoder.usablePrefix(blocks));
        double[] scores = new double[n + 1];
        for (int k = 1; k < n; k++) {
            scores[k] = score(blocks.subList(0, k), full, ssim);
        }
        scores[n] = 1.0;
        return scores;
    }

    private static double score(List<Block> prefix, BufferedImage full, Ssim ssim) {
        BufferedImage partial;
        try {
            partial = ProgressiveJpegEncoder.decode(ProgressiveJpegEncoder.usablePrefix(prefix));
        } catch (IllegalArgumentException undecodable) {
            return 0.0;
        }
        if (partial.getWidth() != full.getWidth() || partial.getHeight() != full.getHeight()) {
            return 0.0;
        }
        return ssim.compare(partial, full);
    }

    /** Linear interpolation of per-block scores {@code scores[k]} at {@code k/N}. */
    private static double interpolate(double[] scores, double f) {
        int n = scores.length - 1;
        double pos = f * n;
        int lo = Math.min(n - 1, (int) Math.floor(pos));
        double w = pos - lo;
        return scores[lo] + w * (scores[lo + 1] - scores[lo]);
    }

    /** The grid of block fractions, ascending, ending at 1. */
    public double[] fractions() {
        return fractions.clone();
    }

    /**
     * The measured utility at each of {@link #fractions()}: non-decreasing, in [0, 1], ending at
     * 1, as measured (it may have flat stretches; {@link #toUtilityFunction()} repairs them).
     */
    public double[] utilities() {
        return utilities.clone();
    }

    /** How many sample images the curve averages. */
    public int sampleCount() {
        return sampleCount;
    }

    /**
     * The curve as a {@link UtilityFunction#tabulated} utility, which repairs what a
     * measurement leaves flat (prefixes that add no SSIM, the running maximum over a dip): it
     * is strictly increasing and concave, so every block has a positive marginal gain and the
     * scheduler sends whole responses.
     */
    public UtilityFunction toUtilityFunction() {
        return UtilityFunction.tabulated(fractions, utilities);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("MeasuredUtility[samples=").append(sampleCount).append(", ");
        for (int i = 0; i < fractions.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(String.format("%.2f->%.3f", fractions[i], utilities[i]));
        }
        return sb.append(']').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MeasuredUtility other && sampleCount == other.sampleCount
                && Arrays.equals(fractions, other.fractions) && Arrays.equals(utilities, other.utilities);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(fractions) + Arrays.hashCode(utilities) + sampleCount;
    }
}
