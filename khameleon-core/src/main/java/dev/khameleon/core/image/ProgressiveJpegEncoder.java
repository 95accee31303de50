package dev.khameleon.core.image;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;

import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.stream.ImageInputStream;
import javax.imageio.stream.ImageOutputStream;
import javax.imageio.stream.MemoryCacheImageInputStream;
import javax.imageio.stream.MemoryCacheImageOutputStream;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * A {@link ProgressiveEncoder} of images as progressive JPEGs ({@code javax.imageio}, progressive
 * mode) cut into fixed-size blocks, laid out so that <em>any</em> non-empty prefix of blocks
 * renders a full-frame picture in a browser or with {@link #decode(byte[])}.
 *
 * <p>Layout. A progressive JPEG starts with its headers and a DC scan (one coefficient per
 * 8×8 block: a blurred full-frame preview), then AC scans that add detail. The encoder puts
 * the headers and every leading DC scan into the first block(s), ending them exactly where the
 * next segment starts — before the DHT that ImageIO writes ahead of each later scan, not at
 * its SOS, so no later scan is split from its Huffman tables. The rest of the preview block is
 * filled with {@code 0xFF} fill bytes, which the JPEG standard (B.1.1.2) allows before any
 * marker; that fill is <em>recorded</em> as the block's {@link Block#padding() padding}. The
 * remaining bytes follow in blocks of {@link #blockSize()}; the last block is zero-padded after
 * the EOI marker, also recorded. Hence concatenating the blocks' {@link Block#content()
 * contents} reproduces the JPEG byte for byte, and concatenating their whole payloads is a
 * valid JPEG too. When the preview is longer than one block (a large image with a small block
 * size) it spans the first {@code ceil(preview / blockSize)} blocks; choose a block size above
 * {@link #previewLength(byte[])} of your images to have it in the first block.
 *
 * <p>Images with an alpha channel are composited over white; other types are converted to
 * 8-bit RGB (grey images stay grey). Instances are immutable and thread-safe: every call
 * uses its own {@link ImageWriter}.
 */
public final class ProgressiveJpegEncoder implements ProgressiveEncoder<BufferedImage> {
    /** The default block size, 8 KiB: holds the preview of a 768×512 photo at the default quality. */
    public static final int DEFAULT_BLOCK_SIZE = 8192;
    /** The default JPEG quality, in ImageIO's {@code (0, 1]} scale. */
    public static final float DEFAULT_QUALITY = 0.8f;

    private static final byte[] EOI = {(byte) 0xFF, (byte) JpegScans.EOI};

    private final int blockSize;
    private final float quality;

    private ProgressiveJpegEncoder(Builder builder) {
        this.blockSize = builder.blockSize;
        this.quality = builder.quality;
    }

    /** A builder with {@link #DEFAULT_BLOCK_SIZE} and {@link #DEFAULT_QUALITY}. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public int blockSize() {
        return blockSize;
    }

    /** The JPEG quality this encoder writes, in {@code (0, 1]}. */
    public float quality() {
        return quality;
    }

    /**
     * Encodes {@code image} as the blocks of request {@code requestId}: the preview block(s)
     * first, then the refinement scans, as described in the class comment.
     *
     * @throws IllegalArgumentException if {@code requestId < 0} or ImageIO cannot encode the image
     */
    @Override
    public List<Block> encode(int requestId, BufferedImage image) {
        if (requestId < 0) {
            throw new IllegalArgumentException("requestId must be >= 0, was " + requestId);
        }
        return split(requestId, toJpeg(image), blockSize);
    }

    /**
     * The image as one progressive JPEG, exactly the bytes whose blocks {@link #encode} returns.
     *
     * @throws IllegalArgumentException if ImageIO cannot encode the image
     */
    public byte[] toJpeg(BufferedImage image) {
        BufferedImage rgb = toEncodable(image);
        Iterator<ImageWriter> writers = ImageIO.getImageWritersByFormatName("jpeg");
        if (!writers.hasNext()) {
            throw new IllegalStateException("this JVM has no javax.imageio JPEG writer");
        }
        ImageWriter writer = writers.next();
        try {
            ImageWriteParam param = writer.getDefaultWriteParam();
            param.setProgressiveMode(ImageWriteParam.MODE_DEFAULT);
            param.setCompressionMode(ImageWriteParam.MODE_EXPLICIT);
            param.setCompressionQuality(quality);
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(rgb.getWidth() * rgb.getHeight() / 4 + 1024);
            try (ImageOutputStream out = new MemoryCacheImageOutputStream(bytes)) {
                writer.setOutput(out);
                writer.write(null, new IIOImage(rgb, null, null), param);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot encode " + image.getWidth() + "x" + image.getHeight()
                    + " image as a progressive JPEG: " + e.getMessage(), e);
        } finally {
            writer.dispose();
        }
    }

    /**
     * The length of the part of a progressive JPEG that renders its full-frame preview: the
     * headers and all leading DC scans.
     *
     * @throws IllegalArgumentException if {@code jpeg} is not a complete progressive JPEG
     */
    public static int previewLength(byte[] jpeg) {
        return JpegScans.previewEnd(jpeg);
    }

    /**
     * Cuts a complete progressive JPEG into blocks as {@link #encode} does: the preview padded
     * with {@code 0xFF} fill to a block boundary, the rest in fixed-size blocks.
     *
     * @throws IllegalArgumentException if {@code blockSize < 1} or {@code jpeg} is not a
     *     complete progressive JPEG
     */
    public static List<Block> split(int requestId, byte[] jpeg, int blockSize) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
        }
        int preview = JpegScans.previewEnd(jpeg);
        int previewBlocks = (preview + blockSize - 1) / blockSize;
        int rest = jpeg.length - preview;
        int count = previewBlocks + (rest + blockSize - 1) / blockSize;
        List<Block> blocks = new ArrayList<>(count);
        for (int i = 0; i < previewBlocks; i++) {
            int from = i * blockSize;
            int len = Math.min(blockSize, preview - from);
            byte[] payload = new byte[blockSize];
            System.arraycopy(jpeg, from, payload, 0, len);
            Arrays.fill(payload, len, blockSize, (byte) 0xFF);
            blocks.add(Block.wrap(requestId, i, count, payload, blockSize - len));
        }
        for (int i = previewBlocks; i < count; i++) {
            int from = preview + (i - previewBlocks) * blockSize;
            int len = Math.min(blockSize, jpeg.length - from);
            byte[] payload = new byte[blockSize];
            System.arraycopy(jpeg, from, payload, 0, len);
            blocks.add(Block.wrap(requestId, i, count, payload, blockSize - len));
        }
        return Collections.unmodifiableList(blocks);
    }

    /**
     * The bytes of the longest run of blocks {@code 0, 1, ..., j} in {@code blocks} (in any
     * order), their padding removed: the usable prefix of the JPEG. Empty if block 0 is absent.
     *
     * @throws IllegalArgumentException if the blocks belong to different requests or disagree
     *     on the block count
     */
    public static byte[] usablePrefix(List<Block> blocks) {
        Block[] byIndex = new Block[blocks.isEmpty() ? 0 : blocks.get(0).count()];
        for (Block b : blocks) {
            Block first = blocks.get(0);
            if (b.requestId() != first.requestId() || b.count() != first.count()) {
                throw new IllegalArgumentException("blocks of one response expected, got " + first + " and " + b);
            }
            byIndex[b.index()] = b;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Block b : byIndex) {
            if (b == null) {
                break;
            }
            ByteBuffer content = b.content();
            byte[] bytes = new byte[content.remaining()];
            content.get(bytes);
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }

    /**
     * What a decoder should be given for a JPEG prefix (any prefix: of blocks, as
     * {@link #usablePrefix} returns, or of bytes): the prefix cut back to the end of its last
     * scan's data, so that no DHT or SOS segment cut short is left at its end, followed by an EOI
     * marker. A scan cut short is kept as far as its data goes; a complete JPEG comes back
     * unchanged. Empty if the prefix holds no renderable scan yet (or is not a JPEG). Any bytes
     * are accepted.
     */
    public static byte[] renderablePrefix(byte[] jpegPrefix) {
        int n = JpegScans.renderableLength(jpegPrefix, jpegPrefix.length);
        if (n == 0) {
            return new byte[0];
        }
        if ((jpegPrefix[n - 2] & 0xFF) == 0xFF && (jpegPrefix[n - 1] & 0xFF) == JpegScans.EOI) {
            return Arrays.copyOf(jpegPrefix, n);
        }
        byte[] data = Arrays.copyOf(jpegPrefix, n + EOI.length);
        System.arraycopy(EOI, 0, data, n, EOI.length);
        return data;
    }

    /**
     * Decodes a JPEG or a prefix of one (as {@link #usablePrefix} returns, or any byte prefix):
     * the prefix is first cut by {@link #renderablePrefix}, as the browser client does, so a
     * truncated scan decodes as far as its data goes and a segment cut short is ignored.
     *
     * @throws IllegalArgumentException if the bytes do not decode to an image (e.g. no scan
     *     header is complete yet)
     */
    public static BufferedImage decode(byte[] jpegPrefix) {
        int n = jpegPrefix.length;
        byte[] data = renderablePrefix(jpegPrefix);
        if (data.length == 0) {
            throw new IllegalArgumentException("cannot decode a JPEG prefix of " + n
                    + " bytes: it holds no complete scan header");
        }
        Iterator<ImageReader> readers = ImageIO.getImageReadersByFormatName("jpeg");
        if (!readers.hasNext()) {
            throw new IllegalStateException("this JVM has no javax.imageio JPEG reader");
        }
        ImageReader reader = readers.next();
        try (ImageInputStream in = new MemoryCacheImageInputStream(new ByteArrayInputStream(data))) {
            reader.setInput(in, true, true);
            return reader.read(0);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("cannot decode a JPEG prefix of " + n + " bytes: " + e.getMessage(), e);
        } finally {
            reader.dispose();
        }
    }

    private static BufferedImage toEncodable(BufferedImage image) {
        int type = image.getType();
        if (type == BufferedImage.TYPE_3BYTE_BGR || type == BufferedImage.TYPE_INT_RGB
                || type == BufferedImage.TYPE_BYTE_GRAY) {
            return image;
        }
        BufferedImage rgb = new BufferedImage(image.getWidth(), image.getHeight(), BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = rgb.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            g.drawImage(image, 0, 0, null);
        } finally {
            g.dispose();
        }
        return rgb;
    }

    @Override
    public String toString() {
        return "ProgressiveJpegEncoder[blockSize=" + blockSize + ", quality=" + quality + "]";
    }

    /** Builds a {@link ProgressiveJpegEncoder}; each setter validates its argument at once. */
    public static final class Builder {
        private int blockSize = DEFAULT_BLOCK_SIZE;
        private float quality = DEFAULT_QUALITY;

        private Builder() {
        }

        /**
         * The fixed payload size of every block, in bytes.
         *
         * @throws IllegalArgumentException if {@code blockSize < 1}
         */
        public Builder blockSize(int blockSize) {
            if (blockSize < 1) {
                throw new IllegalArgumentException("blockSize must be >= 1, was " + blockSize);
            }
            this.blockSize = blockSize;
            return this;
        }

        /**
         * The JPEG quality in ImageIO's scale.
         *
         * @throws IllegalArgumentException if {@code quality} is not in {@code (0, 1]}
         */
        public Builder quality(float quality) {
            if (!(quality > 0f && quality <= 1f)) {
                throw new IllegalArgumentException("quality must be in (0, 1], was " + quality);
            }
            this.quality = quality;
            return this;
        }

        /** The encoder. */
        public ProgressiveJpegEncoder build() {
            return new ProgressiveJpegEncoder(this);
        }
    }
}
