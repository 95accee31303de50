package dev.khameleon.examples.gallery;

import dev.khameleon.core.Block;
import dev.khameleon.core.image.MeasuredUtility;
import dev.khameleon.core.image.ProgressiveJpegEncoder;

import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.MemoryCacheImageOutputStream;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * The gallery's content, built at start (or loaded by {@link CorpusCache}): for every tile its
 * progressive JPEG cut into blocks, one mosaic image of all thumbnails (sent to the browser once),
 * and the utility curve measured on a few of the pictures. Immutable after construction.
 */
final class Corpus {
    /** Pictures whose prefixes are scored to measure the utility curve. */
    private static final int UTILITY_SAMPLES = 4;
    private static final int UTILITY_POINTS = 10;

    private final int rows;
    private final int cols;
    private final int thumbWidth;
    private final int thumbHeight;
    private final int fullWidth;
    private final int fullHeight;
    private final List<List<Block>> blocks;
    private final byte[] mosaicJpeg;
    private final MeasuredUtility utility;

    /** A corpus of these parts (the cache's way in); {@code blocks} holds {@code rows × cols} responses. */
    Corpus(int rows, int cols, int thumbWidth, int thumbHeight, int fullWidth, int fullHeight,
           List<List<Block>> blocks, byte[] mosaicJpeg, MeasuredUtility utility) {
        if (blocks.size() != rows * cols) {
            throw new IllegalArgumentException(blocks.size() + " responses for " + rows + " x " + cols + " tiles");
        }
        this.rows = rows;
        this.cols = cols;
        this.thumbWidth = thumbWidth;
        this.thumbHeight = thumbHeight;
        this.fullWidth = fullWidth;
        this.fullHeight = fullHeight;
        this.blocks = List.copyOf(blocks);
        this.mosaicJpeg = mosaicJpeg.clone();
        this.utility = utility;
    }

    /**
     * Builds a corpus of {@code rows × cols} tiles whose pictures come from {@code pictures}
     * (tile id to a {@code fullWidth × fullHeight} image), encoding in parallel on the common
     * fork-join pool and counting each picture encoded on {@code progress}. The result depends on
     * nothing else (the same arguments give the same bytes), which is what lets {@link CorpusCache}
     * keep it.
     */
    static Corpus build(int rows, int cols, int thumbWidth, int thumbHeight, int fullWidth, int fullHeight,
                        IntFunction<BufferedImage> pictures, ProgressiveJpegEncoder encoder, BuildProgress progress) {
        int n = rows * cols;
        BufferedImage[] thumbs = new BufferedImage[n];
        @SuppressWarnings({"unchecked", "rawtypes"})
        List<Block>[] encoded = new List[n];
        List<BufferedImage> samples = new ArrayList<>();
        BuildProgress.Task encoding = progress.start("encoding pictures", n);
        IntStream.range(0, n).parallel().forEach(id -> {
            BufferedImage picture = pictures.apply(id);
            thumbs[id] = TileImages.thumbnail(picture, thumbWidth, thumbHeight);
            encoded[id] = encoder.encode(id, picture);
            encoding.step();
        });
        encoding.finish();
        for (int id = 0; id < Math.min(n, UTILITY_SAMPLES); id++) {
            samples.add(pictures.apply(id * Math.max(1, n / UTILITY_SAMPLES)));
        }
        BufferedImage mosaic = new BufferedImage(cols * thumbWidth, rows * thumbHeight, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = mosaic.createGraphics();
        try {
            for (int id = 0; id < n; id++) {
                g.drawImage(thumbs[id], (id % cols) * thumbWidth, (id / cols) * thumbHeight, null);
            }
        } finally {
            g.dispose();
        }
        MeasuredUtility measured = MeasuredUtility.measure(encoder, samples, UTILITY_POINTS);
        return new Corpus(rows, cols, thumbWidth, thumbHeight, fullWidth, fullHeight,
                List.of(encoded), baselineJpeg(mosaic, 0.9f), measured);
    }

    private static byte[] baselineJpeg(BufferedImage image, float quality) {
        ImageWriter writer = ImageIO.getImageWritersByFormatName("jpeg").next();
        try {
            ImageWriteParam param = writer.getDefaultWriteParam();
            param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
            param.setCompressionQuality(quality);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (MemoryCacheImageOutputStream stream = new MemoryCacheImageOutputStream(out)) {
                writer.setOutput(stream);
                writer.write(null, new IIOImage(image, null, null), param);
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            writer.dispose();
        }
    }

    int rows() {
        return rows;
    }

    int cols() {
        return cols;
    }

    int requestCount() {
        return blocks.size();
    }

    int thumbWidth() {
        return thumbWidth;
    }

    int thumbHeight() {
        return thumbHeight;
    }

    int fullWidth() {
        return fullWidth;
    }

    int fullHeight() {
        return fullHeight;
    }

    /** The blocks of every tile, by tile id. */
    List<List<Block>> blocks() {
        return blocks;
    }

    /** The full JPEG of one tile (for request/response mode). */
    byte[] jpeg(int id) {
        return ProgressiveJpegEncoder.usablePrefix(blocks.get(id));
    }

    /** All thumbnails in one baseline JPEG, row-major, {@code cols × rows} tiles. */
    byte[] mosaicJpeg() {
        return mosaicJpeg.clone();
    }

    /**
     * Whether {@code other} holds the same bytes: sizes, every block (id, index, count, payload and
     * padding), the mosaic and the utility curve.
     */
    boolean sameContent(Corpus other) {
        return rows == other.rows && cols == other.cols && thumbWidth == other.thumbWidth
                && thumbHeight == other.thumbHeight && fullWidth == other.fullWidth && fullHeight == other.fullHeight
                && blocks.equals(other.blocks) && Arrays.equals(mosaicJpeg, other.mosaicJpeg)
                && utility.equals(other.utility);
    }

    MeasuredUtility utility() {
        return utility;
    }

    /** Total bytes of all blocks (the corpus's size on the wire). */
    long totalBytes() {
        long total = 0;
        for (List<Block> response : blocks) {
            total += (long) response.size() * response.get(0).size();
        }
        return total;
    }
}
