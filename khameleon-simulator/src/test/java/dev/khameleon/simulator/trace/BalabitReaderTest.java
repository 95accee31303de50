package dev.khameleon.simulator.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.testing.SharedData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BalabitReaderTest {

    private static BalabitReader.Session parse(String body) throws IOException {
        String text = "record timestamp,client timestamp,button,state,x,y\n" + body;
        return BalabitReader.parse("test", new BufferedReader(new StringReader(text)), "test");
    }

    @Test
    void parse_filtersSentinelsClicksBackwardsAndCollapsesEqualTimes() throws IOException {
        BalabitReader.Session s = parse("""
                0.0,0.000,NoButton,Move,10,20
                0.0,0.016,NoButton,Move,65535,20
                0.0,0.016,NoButton,Move,11,65535
                0.0,0.016,NoButton,Move,12,22
                0.0,0.016,NoButton,Move,13,23
                0.0,0.031,Left,Pressed,13,23
                0.0,0.047,Left,Drag,15,25
                0.0,0.040,NoButton,Move,99,99
                0.0,0.063,Left,Released,15,25
                0.0,0.078,NoButton,Move,17,27
                """);
        assertEquals(4, s.size());
        assertEquals(2, s.sentinelDropped());
        assertEquals(1, s.backwardsDropped());
        assertEquals(1, s.sameTimeCollapsed());
        assertEquals(16.0, s.timesMillis()[1], 1e-9);
        assertEquals(13.0, s.xs()[1], "the last row of equal timestamps wins");
        assertEquals(15.0, s.xs()[2], "Drag rows are pointer motion");
        assertEquals(18.0, s.screenWidth(), "largest kept x + 1; the sentinel and the backwards row do not count");
        assertEquals(28.0, s.screenHeight());
    }

    @Test
    void parse_rejectsWrongHeaderAndBadNumbers() {
        assertThrows(IllegalArgumentException.class, () -> BalabitReader.parse("x",
                new BufferedReader(new StringReader("a,b,c\n")), "x"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("0.0,zero,NoButton,Move,1,2\n"));
        assertTrue(e.getMessage().contains("test:2"), e.getMessage());
    }

    @Test
    void read_aGzFileThatIsNotGzip_isBadInput(@TempDir Path dir) throws IOException {
        Path f = Files.writeString(dir.resolve("session_1.gz"), "record timestamp,client timestamp");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> BalabitReader.read(f));
        assertTrue(e.getMessage().contains("session_1.gz: not a gzip file"), e.getMessage());
    }

    @Test
    void segments_shortenIdleGapsAndCutAtTheSegmentLength() throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            // 1 s steps, with one 60 s idle gap after sample 49.
            double t = i + (i >= 50 ? 60 : 0);
            sb.append("0.0,").append(t).append(",NoButton,Move,").append(i).append(",5\n");
        }
        BalabitReader.Session s = parse(sb.toString());
        List<PointerTrace> segs = BalabitReader.segments(s, 40_000, 2_000);
        // The 61 s gap shrinks to 2 s: samples at 0..49 and 51..100 s. Segments 0..40 and 41..81;
        // the rest (82..100, 18 s) is shorter than half a segment and dropped.
        assertEquals(2, segs.size());
        assertEquals(40_000, segs.get(1).durationMillis(), 1e-9);
        for (PointerTrace t : segs) {
            assertTrue(t.durationMillis() <= 40_000, t.toString());
            for (int i = 1; i < t.size(); i++) {
                assertTrue(t.timeMillis(i) - t.timeMillis(i - 1) <= 2_000, "gap inside " + t);
            }
        }
        assertEquals("test#1", segs.get(1).name());
    }

    @Test
    void read_realSessionsAreCleanAndSegmentable() throws IOException {
        Path dir = SharedData.require("pointer/balabit/user7");
        Path file;
        try (Stream<Path> files = Files.list(dir)) {
            file = files.filter(p -> p.toString().endsWith(".gz")).sorted().findFirst().orElseThrow();
        }
        BalabitReader.Session s = BalabitReader.read(file);
        assertTrue(s.size() > 1000, "samples: " + s.size());
        assertTrue(s.sameTimeCollapsed() > 0, "real sessions have rows sharing a timestamp");
        for (int i = 0; i < s.size(); i++) {
            assertTrue(s.xs()[i] < BalabitReader.SENTINEL && s.ys()[i] < BalabitReader.SENTINEL);
            assertTrue(i == 0 || s.timesMillis()[i] > s.timesMillis()[i - 1], "strictly increasing at " + i);
        }
        assertTrue(s.screenWidth() <= 4096 && s.screenHeight() <= 4096, s.screenWidth() + "x" + s.screenHeight());
        List<PointerTrace> segs = BalabitReader.segments(s, 180_000, 2_000);
        assertFalse(segs.isEmpty());
        PointerTrace first = segs.get(0);
        assertEquals(0.0, first.timeMillis(0));
        assertTrue(first.durationMillis() <= 180_000 && first.durationMillis() >= 90_000, first.toString());
    }

    @Test
    void read_realSessionWithSentinelRowsDropsThem() {
        // This session has five Move rows at the 65535 sentinel (checked when the test was written).
        Path file = SharedData.require("pointer/balabit/user12/session_5265929106.gz");
        BalabitReader.Session s = BalabitReader.read(file);
        assertEquals(5, s.sentinelDropped());
        for (int i = 0; i < s.size(); i++) {
            assertTrue(s.xs()[i] < BalabitReader.SENTINEL && s.ys()[i] < BalabitReader.SENTINEL);
            assertTrue(i == 0 || s.timesMillis()[i] > s.timesMillis()[i - 1]);
        }
    }
}
