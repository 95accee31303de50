package dev.khameleon.simulator;

import dev.khameleon.core.spi.UtilityFunction;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a response is in a simulated run: the bytes of a picture, the block size it is cut into
 * and the utility of a prefix. Each profile is one setting someone ships or published, so that
 * figures say which one they are for ({@code --profile}, the {@code profile} column of
 * results.csv). Immutable.
 */
public enum Profile {
    /**
     * The paper prototype's gallery: ~1 MB pictures (1,024,862 B) cut into 50 blocks of 20 KiB
     * (20,498 B, so that 50 blocks hold the picture) and valued with the prototype's fixed
     * vector {@link UtilityVector#PAPER_PROTOTYPE}.
     */
    PAPER_PROTOTYPE("paper-prototype", 1_024_862, 20_498, UtilityVector.PAPER_PROTOTYPE.toUtilityFunction()),
    /**
     * The library's own gallery: 480 × 360 photographs from its {@code ProgressiveJpegEncoder}
     * at the default quality in the gallery's 4 KiB blocks, valued with the SSIM curve measured
     * on them ({@code khameleon-simulator utility --images shared/data/images/kodak --size 480x360
     * --block-size 4096} on the 24 Kodak photographs: a mean of 9.33 blocks, 38,229 B, per picture).
     */
    LIBRARY_DEFAULT("library-default", 38_229, 4096, UtilityFunction.tabulated(
            new double[] {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0},
            new double[] {0.479, 0.704, 0.805, 0.868, 0.905, 0.927, 0.946, 0.967, 0.987, 1.0})),
    /**
     * The simulator's earlier reference: 1.5 MB pictures in 100 KB blocks under the mean SSIM of
     * progressive-JPEG prefixes ({@link Workload#ssimUtility()}), which is 0 at 0 blocks; the
     * default, and the setting docs/results was produced at.
     */
    LEGACY_100K("legacy-100k", 1_500_000, 100_000, Workload.ssimUtility());

    private final String label;
    private final long imageBytes;
    private final int blockBytes;
    private final UtilityFunction utility;

    Profile(String label, long imageBytes, int blockBytes, UtilityFunction utility) {
        this.label = label;
        this.imageBytes = imageBytes;
        this.blockBytes = blockBytes;
        this.utility = utility;
    }

    /** The name {@code --profile} takes and results.csv shows. */
    public String label() {
        return label;
    }

    /** Bytes of one full picture. */
    public long imageBytes() {
        return imageBytes;
    }

    /** Bytes of one block. */
    public int blockBytes() {
        return blockBytes;
    }

    /** Utility as a function of the fraction of blocks. */
    public UtilityFunction utility() {
        return utility;
    }

    /**
     * The profile named {@code label}.
     *
     * @throws IllegalArgumentException naming {@code --profile} and the known names for another label
     */
    public static Profile parse(String label) {
        for (Profile p : values()) {
            if (p.label.equals(label.trim().toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new IllegalArgumentException("--profile " + label + ": unknown; known: "
                + Arrays.stream(values()).map(Profile::label).collect(Collectors.joining(", ")));
    }
}
