package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlightsTableTest {
    private static final String HEADER = "FL_DATE,ORIGIN,DEST,DEP_TIME,DEP_DELAY,ARR_TIME,ARR_DELAY,AIR_TIME,DISTANCE\n";

    @TempDir
    Path dir;

    @Test
    void read_realFile_countsRowsAndMissingValuesPerColumn() throws IOException {
        FlightsTable t = FlightsTable.read(FlightsData.flightsCsv());
        assertEquals(10_000, t.size());
        // Counted independently: empty fields per column in flights-10k.csv.
        assertEquals(9, t.missing(FlightsViews.DEP_TIME));
        assertEquals(9, t.missing(FlightsViews.DEP_DELAY));
        assertEquals(9, t.missing(FlightsViews.ARR_TIME));
        assertEquals(13, t.missing(FlightsViews.ARR_DELAY));
        assertEquals(13, t.missing(FlightsViews.AIR_TIME));
        assertEquals(0, t.missing(FlightsViews.DISTANCE));
        // First data line: 20161201,SEA,LAX,2139,72,2359,43,109,954
        assertEquals("SEA", t.origin(0));
        assertEquals("LAX", t.destination(0));
        assertEquals(20161201, t.date(0));
        assertEquals(21 + 39 / 60.0, t.value(FlightsViews.DEP_TIME, 0), 1e-12);
        assertEquals(23 + 59 / 60.0, t.value(FlightsViews.ARR_TIME, 0), 1e-12);
        assertEquals(72, t.value(FlightsViews.DEP_DELAY, 0));
        assertEquals(954, t.value(FlightsViews.DISTANCE, 0));
    }

    @Test
    void read_convertsHhmmToHours_midnightAs2400IsZero_emptyIsMissing() throws IOException {
        Path csv = dir.resolve("f.csv");
        Files.writeString(csv, HEADER + "20161201,SEA,LAX,0005,,2400,-3,60,954\n");
        FlightsTable t = FlightsTable.read(csv);
        assertEquals(5 / 60.0, t.value(FlightsViews.DEP_TIME, 0), 1e-12);
        assertEquals(0.0, t.value(FlightsViews.ARR_TIME, 0));
        assertTrue(Double.isNaN(t.value(FlightsViews.DEP_DELAY, 0)));
        assertEquals(1, t.missing(FlightsViews.DEP_DELAY));
        assertEquals(-3, t.value(FlightsViews.ARR_DELAY, 0));
    }

    @Test
    void read_rejectsBadTimeWithLineNumber() throws IOException {
        Path csv = dir.resolve("f.csv");
        Files.writeString(csv, HEADER + "20161201,SEA,LAX,0005,1,2400,-3,60,954\n20161201,SEA,LAX,1275,1,2400,-3,60,954\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FlightsTable.read(csv));
        assertTrue(e.getMessage().contains(":3:") && e.getMessage().contains("DEP_TIME"), e.getMessage());
    }

    @Test
    void read_rejectsWrongHeaderAndShortLine() throws IOException {
        Path bad = dir.resolve("h.csv");
        Files.writeString(bad, "A,B\n1,2\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FlightsTable.read(bad)).getMessage()
                .contains("header"));
        Path shortLine = dir.resolve("s.csv");
        Files.writeString(shortLine, HEADER + "20161201,SEA,LAX\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FlightsTable.read(shortLine)).getMessage()
                .contains("expected 9 fields"));
        Path notNumber = dir.resolve("n.csv");
        Files.writeString(notNumber, HEADER + "20161201,SEA,LAX,0005,x,2400,-3,60,954\n");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FlightsTable.read(notNumber)).getMessage()
                .contains("DEP_DELAY is not a number"));
    }

    @Test
    void sample_sameSeedSameRows_otherSeedOtherRows_fullSizeIsIdentity() throws IOException {
        Path csv = dir.resolve("f.csv");
        StringBuilder sb = new StringBuilder(HEADER);
        for (int i = 0; i < 10; i++) {
            sb.append("20161201,SEA,LAX,0005,").append(i).append(",2400,-3,60,954\n");
        }
        Files.writeString(csv, sb);
        FlightsTable t = FlightsTable.read(csv);
        int[] a = t.sample(1000, 7);
        assertArrayEquals(a, t.sample(1000, 7));
        assertFalse(Arrays.equals(a, t.sample(1000, 8)));
        assertTrue(Arrays.stream(a).allMatch(r -> r >= 0 && r < 10));
        // With replacement and uniform: every one of the 10 rows is drawn, none more than twice its share.
        int[] hits = new int[10];
        for (int r : a) {
            hits[r]++;
        }
        assertTrue(Arrays.stream(hits).allMatch(h -> h > 50 && h < 200), Arrays.toString(hits));
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, t.sample(10, 7));
        assertThrows(IllegalArgumentException.class, () -> t.sample(0, 7));
    }
}
