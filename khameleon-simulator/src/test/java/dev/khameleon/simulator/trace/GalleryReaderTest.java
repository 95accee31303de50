package dev.khameleon.simulator.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.testing.SharedData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GalleryReaderTest {

    @Test
    void read_realTraceIsTenSecondsOnA20msGrid() {
        PointerTrace t = GalleryReader.read(SharedData.require("pointer/gallery/1M-10s.json"));
        assertEquals("gallery/1M-10s", t.name());
        assertTrue(t.size() > 100, t.toString());
        assertTrue(t.durationMillis() > 5_000 && t.durationMillis() < 15_000, t.toString());
        for (int i = 1; i < t.size(); i++) {
            assertTrue(t.timeMillis(i) > t.timeMillis(i - 1));
        }
    }

    @Test
    void read_collapsesEqualTimesAndDropsBackwardsEvents(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("t.json");
        Files.writeString(f, """
                [{"e":[1,2,1000,"m"],"etype":"p"},{"e":[3,4,1000,"m"],"etype":"p"},
                 {"e":[9,9,990,"m"],"etype":"p"},{"e":[5,6,1020,"d"],"etype":"p"},
                 {"e":[1,1,1030,"x"],"etype":"k"}]""");
        PointerTrace t = GalleryReader.read(f);
        assertEquals(2, t.size());
        assertEquals(3.0, t.x(0));
        assertEquals(20.0, t.timeMillis(1));
        assertEquals(6.0, t.screenWidth());
    }

    @Test
    void read_rejectsMalformedEvents(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("bad.json");
        Files.writeString(f, "[{\"e\":[\"a\",2,3],\"etype\":\"p\"}]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GalleryReader.read(f));
        assertTrue(e.getMessage().contains("event 0"), e.getMessage());
        Path g = dir.resolve("obj.json");
        Files.writeString(g, "{}");
        assertThrows(IllegalArgumentException.class, () -> GalleryReader.read(g));
        Path h = dir.resolve("garbage.json");
        Files.writeString(h, "garbage");
        e = assertThrows(IllegalArgumentException.class, () -> GalleryReader.read(h));
        assertTrue(e.getMessage().contains("garbage.json: not JSON"), e.getMessage());
    }

    @Test
    void read_dropsNegativePositions_andSaysSoWhenNoneIsLeft(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("neg.json");
        Files.writeString(f, "[{\"e\":[-5,2,0,\"m\"],\"etype\":\"p\"},{\"e\":[3,4,20,\"m\"],\"etype\":\"p\"}]");
        PointerTrace t = GalleryReader.read(f);
        assertEquals(1, t.size());
        assertEquals(3, t.x(0), 0);
        Path g = dir.resolve("allneg.json");
        Files.writeString(g, "[{\"e\":[-5,2,0,\"m\"],\"etype\":\"p\"}]");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GalleryReader.read(g));
        assertTrue(e.getMessage().contains("non-negative"), e.getMessage());
    }
}
