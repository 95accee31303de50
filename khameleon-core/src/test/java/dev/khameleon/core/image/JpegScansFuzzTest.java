package dev.khameleon.core.image;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Arbitrary bytes through the JPEG marker reader and the prefix cut: the reader fails only with
 * its documented {@link IllegalArgumentException}, the cut never fails. {@code mvn verify} replays
 * the seeds in {@code JpegScansFuzzTestInputs/}; {@code JAZZER_FUZZ=1} fuzzes (see docs/gallery.md).
 */
class JpegScansFuzzTest {

    @FuzzTest(maxDuration = "5m")
    void segmentsAndCut_onArbitraryBytes(byte[] data) {
        try {
            JpegScans.segments(data);
        } catch (IllegalArgumentException expected) {
            // documented for anything but a complete, well-formed marker sequence
        }
        try {
            JpegScans.previewEnd(data);
        } catch (IllegalArgumentException expected) {
            // documented likewise, and for a JPEG that is not progressive
        }
        int cut = JpegScans.renderableLength(data, data.length);
        assertTrue(cut >= 0 && cut <= data.length, "cut " + cut + " of " + data.length);
        for (int n = Math.max(0, data.length - 8); n <= data.length; n++) {
            assertTrue(JpegScans.renderableLength(data, n) <= Math.min(n, cut),
                    "a shorter prefix never renders more: " + n);
        }
        byte[] prefix = ProgressiveJpegEncoder.renderablePrefix(data);
        if (cut == 0) {
            assertEquals(0, prefix.length);
        } else {
            assertArrayEquals(Arrays.copyOf(data, cut), Arrays.copyOf(prefix, cut), "the cut is a prefix");
            assertEquals(0xD9, prefix[prefix.length - 1] & 0xFF, "ends with EOI");
            assertEquals(0xFF, prefix[prefix.length - 2] & 0xFF, "ends with EOI");
        }
    }
}
