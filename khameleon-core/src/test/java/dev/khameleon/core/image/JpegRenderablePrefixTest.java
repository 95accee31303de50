package dev.khameleon.core.image;

import dev.khameleon.core.Block;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import javax.imageio.ImageIO;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Cutting a JPEG prefix back to what decoders render: {@link ProgressiveJpegEncoder#renderablePrefix}. */
class JpegRenderablePrefixTest {
    /** The gallery's settings: 480×360 pictures in 4 KiB blocks at the default quality. */
    private static final ProgressiveJpegEncoder GALLERY = ProgressiveJpegEncoder.builder().blockSize(4096).build();
    private static final int STRIDE = 1999;

    /** The ends of every scan's entropy-coded data: the only places a cut inside the headers may go back to. */
    private static Set<Integer> scanEnds(byte[] jpeg) {
        Set<Integer> ends = new HashSet<>();
        for (JpegScans.Segment s : JpegScans.segments(jpeg)) {
            if (s.isScan()) {
                ends.add(s.end());
            }
        }
        return ends;
    }

    private static int firstScanHeaderEnd(byte[] jpeg) {
        JpegScans.Segment sos = JpegScans.segments(jpeg).stream().filter(JpegScans.Segment::isScan).findFirst()
                .orElseThrow();
        return sos.offset() + 2 + (((jpeg[sos.offset() + 2] & 0xFF) << 8) | (jpeg[sos.offset() + 3] & 0xFF));
    }

    @Test
    void renderableLength_ofEveryBytePrefix_isTheScanDataSoFarAndNeverInsideAHeader() {
        byte[] jpeg = GALLERY.toJpeg(TestImages.synthetic(96, 64, 5));
        Set<Integer> scanEnds = scanEnds(jpeg);
        int firstData = firstScanHeaderEnd(jpeg);
        List<JpegScans.Segment> segments = JpegScans.segments(jpeg);
        int previous = 0;
        for (int n = 0; n <= jpeg.length; n++) {
            int cut = JpegScans.renderableLength(jpeg, n);
            assertTrue(cut <= n, "prefix " + n + " cut to " + cut);
            assertTrue(cut >= previous, "a longer prefix never renders less: " + n + " -> " + cut + " < " + previous);
            previous = cut;
            if (n < firstData) {
                assertEquals(0, cut, "no scan header complete in " + n + " bytes");
                continue;
            }
            assertTrue(cut > 0, "prefix " + n + " holds a scan");
            boolean insideScanData = false;
            for (JpegScans.Segment s : segments) {
                if (s.isScan() && n > s.offset() && n <= s.end()) {
                    int headerEnd = s.offset() + 2 + (((jpeg[s.offset() + 2] & 0xFF) << 8) | (jpeg[s.offset() + 3] & 0xFF));
                    insideScanData = n >= headerEnd;
                }
            }
            if (n == jpeg.length) {
                assertEquals(jpeg.length, cut, "the whole JPEG is kept");
            } else if (insideScanData) {
                assertEquals((jpeg[n - 1] & 0xFF) == 0xFF ? n - 1 : n, cut, "a scan cut short is kept, prefix " + n);
            } else {
                assertTrue(scanEnds.contains(cut), "prefix " + n + " ending in a header is cut to " + cut
                        + ", not the end of a scan " + new TreeSet<>(scanEnds));
            }
        }
    }

    @Test
    void renderablePrefix_appendsEoiOnlyWhenMissingAndRefusesNothing() {
        byte[] jpeg = GALLERY.toJpeg(TestImages.synthetic(96, 64, 6));
        assertArrayEquals(jpeg, ProgressiveJpegEncoder.renderablePrefix(jpeg), "a complete JPEG is unchanged");

        JpegScans.Segment dht = JpegScans.segments(jpeg).stream()
                .filter(s -> s.marker() == JpegScans.DHT && s.offset() > JpegScans.previewEnd(jpeg))
                .findFirst().orElseThrow();
        byte[] halfTable = Arrays.copyOf(jpeg, dht.offset() + 6);
        byte[] cut = ProgressiveJpegEncoder.renderablePrefix(halfTable);
        assertEquals(dht.offset() + 2, cut.length, "cut before the half table, plus EOI");
        assertArrayEquals(Arrays.copyOf(jpeg, dht.offset()), Arrays.copyOf(cut, dht.offset()));
        assertEquals(0xFF, cut[cut.length - 2] & 0xFF);
        assertEquals(JpegScans.EOI, cut[cut.length - 1] & 0xFF);

        assertEquals(0, ProgressiveJpegEncoder.renderablePrefix(new byte[0]).length);
        assertEquals(0, ProgressiveJpegEncoder.renderablePrefix("GIF89a".getBytes()).length);
        assertEquals(0, ProgressiveJpegEncoder.renderablePrefix(Arrays.copyOf(jpeg, firstScanHeaderEnd(jpeg) - 1)).length);
        IllegalArgumentException headersOnly = assertThrows(IllegalArgumentException.class,
                () -> ProgressiveJpegEncoder.decode(Arrays.copyOf(jpeg, firstScanHeaderEnd(jpeg) - 1)));
        assertTrue(headersOnly.getMessage().contains("no complete scan header"), headersOnly.getMessage());
    }

    /**
     * Every Kodak photo at the gallery's settings: every block prefix, every byte prefix ending
     * inside or just after a segment header, and byte prefixes at a stride decode after the cut.
     */
    @Test
    void kodak_everyBlockPrefixAndBytePrefixesDecodeAfterTheCut() throws IOException {
        Path dir = TestImages.kodakDir();
        int checked = 0;
        int naiveFailures = 0;
        for (int i = 1; i <= 24; i++) {
            Path file = dir.resolve(String.format("kodim%02d.png", i));
            Assumptions.assumeTrue(Files.isRegularFile(file), "Kodak image absent: " + file.toAbsolutePath());
            byte[] jpeg = GALLERY.toJpeg(galleryPicture(ImageIO.read(file.toFile())));
            List<Block> blocks = ProgressiveJpegEncoder.split(i, jpeg, GALLERY.blockSize());
            Map<Integer, Boolean> decoded = new HashMap<>(); // by cut length: decode each distinct cut once
            List<byte[]> prefixes = new ArrayList<>();
            for (int b = 1; b <= blocks.size(); b++) {
                prefixes.add(ProgressiveJpegEncoder.usablePrefix(blocks.subList(0, b)));
            }
            for (JpegScans.Segment s : JpegScans.segments(jpeg)) {
                if (s.offset() >= JpegScans.previewEnd(jpeg) && s.marker() != JpegScans.EOI) {
                    int headerEnd = s.isScan() ? s.offset() + 2 + (((jpeg[s.offset() + 2] & 0xFF) << 8)
                            | (jpeg[s.offset() + 3] & 0xFF)) : s.end();
                    for (int n = s.offset() + 1; n <= Math.min(headerEnd + 1, jpeg.length); n++) {
                        prefixes.add(Arrays.copyOf(jpeg, n));
                    }
                    if (i <= 4 && s.marker() == JpegScans.DHT && naiveFailsToDecode(Arrays.copyOf(jpeg, s.offset() + 8))) {
                        naiveFailures++;
                    }
                }
            }
            for (int n = firstScanHeaderEnd(jpeg) + i; n < jpeg.length; n += STRIDE) {
                prefixes.add(Arrays.copyOf(jpeg, n));
            }
            for (byte[] prefix : prefixes) {
                byte[] cut = ProgressiveJpegEncoder.renderablePrefix(prefix);
                assertTrue(cut.length > 0, "kodim" + i + ": a prefix of " + prefix.length + " bytes renders nothing");
                if (decoded.putIfAbsent(cut.length, true) == null) {
                    BufferedImage image = ProgressiveJpegEncoder.decode(prefix); // throws if not decodable
                    assertEquals(480, image.getWidth(), "kodim" + i + ", prefix " + prefix.length);
                    assertEquals(360, image.getHeight(), "kodim" + i + ", prefix " + prefix.length);
                    checked++;
                }
            }
        }
        assertTrue(checked >= 24 * 10, "decoded " + checked + " distinct cuts");
        assertTrue(naiveFailures > 0, "the prefixes tried include ones a decoder rejects without the cut");
    }

    /** A Kodak photo scaled to the gallery's 480×360 pictures. */
    private static BufferedImage galleryPicture(BufferedImage photo) {
        BufferedImage out = new BufferedImage(480, 360, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = out.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
            g.drawImage(photo, 0, 0, 480, 360, null);
        } finally {
            g.dispose();
        }
        return out;
    }

    /** Whether ImageIO rejects {@code prefix} with only an EOI appended (what clients did before the cut). */
    private static boolean naiveFailsToDecode(byte[] prefix) {
        byte[] data = Arrays.copyOf(prefix, prefix.length + 2);
        data[prefix.length] = (byte) 0xFF;
        data[prefix.length + 1] = (byte) JpegScans.EOI;
        try {
            return ImageIO.read(new ByteArrayInputStream(data)) == null;
        } catch (IOException | RuntimeException e) {
            return true;
        }
    }
}
