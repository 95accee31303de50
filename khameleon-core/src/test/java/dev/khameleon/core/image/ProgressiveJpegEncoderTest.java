package dev.khameleon.core.image;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.core.testkit.ProgressiveEncoderContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import javax.imageio.ImageIO;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressiveJpegEncoderTest {
    private static final ProgressiveJpegEncoder ENCODER = ProgressiveJpegEncoder.builder().blockSize(4096).build();

    @Nested
    class Contract extends ProgressiveEncoderContract<BufferedImage> {
        @Override
        protected ProgressiveEncoder<BufferedImage> encoder() {
            return ENCODER;
        }

        @Override
        protected List<BufferedImage> sampleResponses() {
            return List.of(TestImages.synthetic(320, 240, 1), TestImages.synthetic(64, 48, 2),
                    TestImages.synthetic(800, 600, 3));
        }
    }

    private static byte[] concat(List<Block> blocks, boolean withPadding) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Block b : blocks) {
            ByteBuffer bytes = withPadding ? b.payload() : b.content();
            byte[] a = new byte[bytes.remaining()];
            bytes.get(a);
            out.writeBytes(a);
        }
        return out.toByteArray();
    }

    private static double lumaVariance(BufferedImage image) {
        int[] y = Ssim.luma(image);
        double mean = 0;
        for (int v : y) {
            mean += v;
        }
        mean /= y.length;
        double var = 0;
        for (int v : y) {
            var += (v - mean) * (v - mean);
        }
        return var / y.length;
    }

    @Test
    void encode_firstBlockHoldsHeadersAndWholeDcScanEndingBeforeTheNextDht() {
        BufferedImage image = TestImages.synthetic(320, 240, 1);
        byte[] jpeg = ENCODER.toJpeg(image);
        List<JpegScans.Segment> segments = JpegScans.segments(jpeg);
        assertEquals(JpegScans.SOF2, segments.stream().filter(s -> s.marker() >= 0xC0 && s.marker() <= 0xC2)
                .findFirst().orElseThrow().marker(), "progressive frame header");
        JpegScans.Segment dc = segments.stream().filter(JpegScans.Segment::isScan).findFirst().orElseThrow();
        assertTrue(dc.isDcFirstScan(), "first scan " + dc);
        int next = segments.indexOf(dc) + 1;
        assertEquals(JpegScans.DHT, segments.get(next).marker(), "ImageIO writes a DHT before the second scan");

        List<Block> blocks = ENCODER.encode(7, image);
        Block first = blocks.get(0);
        assertEquals(dc.end(), first.size() - first.padding(), "first block content ends at the DC scan's end");
        ByteBuffer fill = first.payload().position(dc.end());
        while (fill.hasRemaining()) {
            assertEquals((byte) 0xFF, fill.get(), "preview padding is JPEG fill bytes");
        }
        byte[] second = blocks.get(1).payloadBytes();
        assertEquals(0xFF, second[0] & 0xFF);
        assertEquals(JpegScans.DHT, second[1] & 0xFF, "second block starts with the next scan's DHT");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void encode_contentsReassembleTheJpegAndEveryBlockHasTheBlockSize(long seed) {
        BufferedImage image = TestImages.synthetic(300, 200, seed);
        byte[] jpeg = ENCODER.toJpeg(image);
        List<Block> blocks = ENCODER.encode(3, image);
        assertArrayEquals(jpeg, concat(blocks, false));
        for (int i = 0; i < blocks.size(); i++) {
            Block b = blocks.get(i);
            assertEquals(4096, b.size());
            assertEquals(i, b.index());
            assertEquals(blocks.size(), b.count());
            assertEquals(3, b.requestId());
            if (i > 0 && i < blocks.size() - 1) {
                assertEquals(0, b.padding(), "only the preview and last blocks are padded");
            }
        }
        Block last = blocks.get(blocks.size() - 1);
        assertEquals((jpeg.length - JpegScans.previewEnd(jpeg)) % 4096 == 0 ? 0
                : 4096 - (jpeg.length - JpegScans.previewEnd(jpeg)) % 4096, last.padding());
    }

    @Test
    void encode_payloadsWithPaddingDecodeToTheSameImage() {
        BufferedImage image = TestImages.synthetic(256, 256, 4);
        List<Block> blocks = ENCODER.encode(0, image);
        BufferedImage exact = ProgressiveJpegEncoder.decode(concat(blocks, false));
        BufferedImage padded = ProgressiveJpegEncoder.decode(concat(blocks, true));
        assertEquals(1.0, Ssim.standard().compare(exact, padded), 1e-12);
    }

    @Test
    void encode_everyPrefixDecodesToAFullFrameThatImprovesToTheFullImage() {
        BufferedImage image = TestImages.synthetic(480, 320, 5);
        ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().blockSize(2048).build();
        List<Block> blocks = encoder.encode(0, image);
        assertTrue(blocks.size() >= 4, "enough blocks to test prefixes: " + blocks.size());
        BufferedImage full = ProgressiveJpegEncoder.decode(ProgressiveJpegEncoder.usablePrefix(blocks));
        int previewBlocks = (JpegScans.previewEnd(encoder.toJpeg(image)) + 2047) / 2048;
        for (int k = previewBlocks; k <= blocks.size(); k++) {
            BufferedImage partial = ProgressiveJpegEncoder.decode(
                    ProgressiveJpegEncoder.usablePrefix(blocks.subList(0, k)));
            assertEquals(480, partial.getWidth());
            assertEquals(320, partial.getHeight());
            assertTrue(lumaVariance(partial) > 10, "prefix of " + k + " blocks is blank");
            // The bottom row of 8x8 blocks is present already in the preview: full frame.
            assertTrue(Ssim.standard().compare(partial, full) > 0.3, "prefix of " + k + " blocks");
        }
        double previewScore = Ssim.standard().compare(ProgressiveJpegEncoder.decode(
                ProgressiveJpegEncoder.usablePrefix(blocks.subList(0, previewBlocks))), full);
        assertTrue(previewScore < 1.0, "the preview alone is not the full image: " + previewScore);
    }

    @Test
    void encode_smallBlockSize_spreadsThePreviewOverTheLeadingBlocks() {
        BufferedImage image = TestImages.synthetic(400, 300, 6);
        byte[] jpeg = ENCODER.toJpeg(image);
        int preview = JpegScans.previewEnd(jpeg);
        int blockSize = preview / 3 + 1;
        List<Block> blocks = ProgressiveJpegEncoder.split(1, jpeg, blockSize);
        int previewBlocks = (preview + blockSize - 1) / blockSize;
        assertEquals(3, previewBlocks);
        assertEquals(previewBlocks * blockSize - preview, blocks.get(previewBlocks - 1).padding());
        assertEquals(0, blocks.get(0).padding());
        assertArrayEquals(jpeg, concat(blocks, false));
    }

    @Test
    void encode_greyAndTranslucentImages() {
        BufferedImage grey = new BufferedImage(200, 100, BufferedImage.TYPE_BYTE_GRAY);
        grey.getGraphics().drawImage(TestImages.synthetic(200, 100, 8), 0, 0, null);
        List<Block> greyBlocks = ENCODER.encode(0, grey);
        assertEquals(200, ProgressiveJpegEncoder.decode(ProgressiveJpegEncoder.usablePrefix(greyBlocks)).getWidth());

        BufferedImage clear = new BufferedImage(64, 64, BufferedImage.TYPE_INT_ARGB);
        BufferedImage decoded = ProgressiveJpegEncoder.decode(
                ProgressiveJpegEncoder.usablePrefix(ENCODER.encode(0, clear)));
        Color c = new Color(decoded.getRGB(32, 32));
        assertTrue(c.getRed() > 245 && c.getGreen() > 245 && c.getBlue() > 245, "composited over white: " + c);
    }

    @Test
    void usablePrefix_stopsAtTheFirstMissingBlock() {
        ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().blockSize(1024).build();
        List<Block> blocks = encoder.encode(0, TestImages.synthetic(400, 300, 2));
        assertTrue(blocks.size() >= 4, "blocks: " + blocks.size());
        List<Block> gap = new ArrayList<>(List.of(blocks.get(3), blocks.get(1), blocks.get(0)));
        assertArrayEquals(concat(blocks.subList(0, 2), false), ProgressiveJpegEncoder.usablePrefix(gap));
        assertEquals(0, ProgressiveJpegEncoder.usablePrefix(List.of(blocks.get(1))).length);
        assertEquals(0, ProgressiveJpegEncoder.usablePrefix(List.of()).length);
        List<Block> mixed = List.of(blocks.get(0), encoder.encode(1, TestImages.synthetic(400, 300, 2)).get(1));
        assertThrows(IllegalArgumentException.class, () -> ProgressiveJpegEncoder.usablePrefix(mixed));
    }

    @Test
    void split_rejectsBaselineAndMalformedJpegs() throws IOException {
        ByteArrayOutputStream baseline = new ByteArrayOutputStream();
        ImageIO.write(TestImages.synthetic(64, 64, 1), "jpeg", baseline);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProgressiveJpegEncoder.split(0, baseline.toByteArray(), 1024));
        assertTrue(e.getMessage().contains("not a progressive JPEG"), e.getMessage());

        byte[] jpeg = ENCODER.toJpeg(TestImages.synthetic(64, 64, 1));
        byte[] truncated = java.util.Arrays.copyOf(jpeg, 100);
        assertThrows(IllegalArgumentException.class, () -> ProgressiveJpegEncoder.split(0, truncated, 1024));
        IllegalArgumentException notJpeg = assertThrows(IllegalArgumentException.class,
                () -> ProgressiveJpegEncoder.split(0, new byte[] {1, 2, 3, 4, 5}, 1024));
        assertTrue(notJpeg.getMessage().contains("SOI"), notJpeg.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ProgressiveJpegEncoder.split(0, jpeg, 0));
    }

    @Test
    void decode_rejectsBytesWithoutHeaders() {
        byte[] jpeg = ENCODER.toJpeg(TestImages.synthetic(64, 64, 1));
        assertThrows(IllegalArgumentException.class,
                () -> ProgressiveJpegEncoder.decode(java.util.Arrays.copyOf(jpeg, 40)));
    }

    @Test
    void builder_validatesEachSetting() {
        IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
                () -> ProgressiveJpegEncoder.builder().blockSize(0));
        assertTrue(size.getMessage().contains("blockSize") && size.getMessage().contains("0"), size.getMessage());
        IllegalArgumentException quality = assertThrows(IllegalArgumentException.class,
                () -> ProgressiveJpegEncoder.builder().quality(1.5f));
        assertTrue(quality.getMessage().contains("quality") && quality.getMessage().contains("1.5"));
        assertThrows(IllegalArgumentException.class, () -> ProgressiveJpegEncoder.builder().quality(Float.NaN));
        assertThrows(IllegalArgumentException.class, () -> ENCODER.encode(-1, TestImages.synthetic(8, 8, 1)));
        ProgressiveJpegEncoder built = ProgressiveJpegEncoder.builder().blockSize(1000).quality(0.5f).build();
        assertEquals(1000, built.blockSize());
        assertEquals(0.5f, built.quality());
    }

    @Test
    void encode_kodakPhotos_defaultBlockSizeHoldsThePreviewInTheFirstBlock() {
        ProgressiveJpegEncoder encoder = ProgressiveJpegEncoder.builder().build();
        for (BufferedImage photo : TestImages.kodak(4)) {
            byte[] jpeg = encoder.toJpeg(photo);
            int preview = ProgressiveJpegEncoder.previewLength(jpeg);
            assertTrue(preview <= ProgressiveJpegEncoder.DEFAULT_BLOCK_SIZE, "preview of " + preview + " bytes");
            List<Block> blocks = encoder.encode(0, photo);
            assertEquals(preview, blocks.get(0).size() - blocks.get(0).padding());
            BufferedImage first = ProgressiveJpegEncoder.decode(ProgressiveJpegEncoder.usablePrefix(blocks.subList(0, 1)));
            assertEquals(photo.getWidth(), first.getWidth());
            assertEquals(photo.getHeight(), first.getHeight());
            BufferedImage full = ProgressiveJpegEncoder.decode(ProgressiveJpegEncoder.usablePrefix(blocks));
            double s = Ssim.standard().compare(first, full);
            assertTrue(s > 0.2 && s < 1.0, "first block of a photo is a real but partial preview: " + s);
            assertTrue(Ssim.standard().compare(full, photo) > 0.85, "full decode resembles the photo");
        }
    }
}
