package dev.khameleon.simulator;

import dev.khameleon.core.spi.GridLayout;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.UtilityFunction;

/**
 * The paper's image-exploration application as the simulator sees it: a mosaic of
 * {@code rows × cols} thumbnails laid over the trace's screen, each requesting a full image of
 * {@code imageBytes} progressively encoded into blocks of {@code blockBytes}, whose quality
 * for a prefix of blocks is {@code utility}. Immutable.
 *
 * @param layout     the mosaic on the screen; cell {@code (r, c)} is request {@code r·cols + c}
 * @param imageBytes bytes of one full response
 * @param blockBytes bytes of one block (the last block is padded to this size)
 * @param utility    quality as a function of the fraction of blocks present
 */
public record Workload(GridLayout layout, long imageBytes, int blockBytes, UtilityFunction utility) {

    /** The measured SSIM of progressive-JPEG prefixes: fraction of bytes → mean SSIM. */
    public static final double[] SSIM_FRACTIONS = {0.09, 0.19, 0.45, 0.61, 1.0};
    /** See {@link #SSIM_FRACTIONS}. */
    public static final double[] SSIM_VALUES = {0.81, 0.95, 0.985, 0.993, 1.0};

    /** Validates the sizes. */
    public Workload {
        if (imageBytes < 1) {
            throw new IllegalArgumentException("imageBytes must be >= 1, was " + imageBytes);
        }
        if (blockBytes < 1) {
            throw new IllegalArgumentException("blockBytes must be >= 1, was " + blockBytes);
        }
    }

    /** The SSIM-vs-prefix curve of progressive JPEG, as a utility function. */
    public static UtilityFunction ssimUtility() {
        return UtilityFunction.tabulated(SSIM_FRACTIONS, SSIM_VALUES);
    }

    /** A {@code rows × cols} mosaic covering a {@code width × height} pixel screen. */
    public static GridLayout mosaic(int rows, int cols, double width, double height) {
        return Layout.grid(rows, cols, 0, 0, width / cols, height / rows);
    }

    /** The number of requests (thumbnails). */
    public int requestCount() {
        return layout.requestCount();
    }

    /** Blocks per full response: {@code ceil(imageBytes / blockBytes)}. */
    public int blocksPerResponse() {
        return (int) ((imageBytes + blockBytes - 1) / blockBytes);
    }

    /** The utility of {@code blocks} blocks of a response. */
    public double utilityOf(int blocks) {
        int n = blocksPerResponse();
        return blocks >= n ? 1.0 : utility.utility((double) blocks / n);
    }
}
