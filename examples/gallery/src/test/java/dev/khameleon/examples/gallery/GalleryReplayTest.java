package dev.khameleon.examples.gallery;

import dev.khameleon.client.ClientMetrics;
import dev.khameleon.testing.SharedData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(120)
class GalleryReplayTest {

    @Test
    void javaClientReplayingARealTrace_getsAnswersPushedThroughTheEmulatedLink() throws Exception {
        Path file = SharedData.requireFile("pointer/gallery/1M-30s.json", "pointer trace");
        PointerTrace trace = PointerTrace.read(file).first(6_000);
        try (GalleryServer gallery = GalleryServer.builder().port(0).grid(8, 12).cacheBlocks(300)
                .linkBytesPerSecond(2e6).latencyMillis(40).start()) {
            ClientMetrics m = TraceReplay.replay(gallery,
                    trace.scaledTo(12 * GalleryServer.Config.THUMB_WIDTH, 8 * GalleryServer.Config.THUMB_HEIGHT),
                    Duration.ofMillis(500));
            assertTrue(m.registrations() >= 5, "hovers: " + m);
            assertTrue(m.answered() >= 1, "answers: " + m);
            assertTrue(m.blocksReceived() > 0 && m.blocksUsed() > 0, "blocks: " + m);
        }
    }

    @Test
    void trace_isScaledOntoTheMosaicKeepingTimes(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("t.json");
        Files.writeString(file, "[{\"e\":[100,50,1000,\"m\"]},{\"e\":[300,150,1020,\"m\"]},{\"e\":[200,100,1040,\"d\"]}]");
        PointerTrace scaled = PointerTrace.read(file).scaledTo(105, 55);
        assertEquals(new PointerTrace.Sample(2, 2, 1000), scaled.samples().get(0));
        assertEquals(new PointerTrace.Sample(102, 52, 1020), scaled.samples().get(1));
        assertEquals(new PointerTrace.Sample(52, 27, 1040), scaled.samples().get(2));
        assertEquals(2, PointerTrace.read(file).first(20).samples().size());
    }

    @Test
    void trace_rejectsMalformedFiles(@TempDir Path dir) throws Exception {
        Path empty = Files.writeString(dir.resolve("empty.json"), "[]");
        assertThrows(IllegalArgumentException.class, () -> PointerTrace.read(empty));
        Path bad = Files.writeString(dir.resolve("bad.json"), "[{\"e\":[\"x\",1,2]}]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PointerTrace.read(bad));
        assertTrue(e.getMessage().contains("event 0"), e.getMessage());
    }
}
