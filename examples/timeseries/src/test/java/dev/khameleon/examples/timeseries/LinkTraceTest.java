package dev.khameleon.examples.timeseries;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LinkTraceTest {
    @TempDir
    Path dir;

    @Test
    void read_countsDeliveriesPerBinAndDropsThePartialLastBin() throws IOException {
        Path file = Files.writeString(dir.resolve("t.down"), "0\n0\n9\n12\n31\n");
        LinkTrace trace = LinkTrace.read(file, 10);
        assertArrayEquals(new int[] {3, 1, 0}, trace.packetsPerBin());
        assertEquals(1, trace.windows(2).size(), "a partial last window is dropped");
        assertArrayEquals(new int[] {3, 1}, trace.windows(2).get(0));
    }

    @Test
    void read_namesTheFileAndLineOfABadLine() throws IOException {
        for (String bad : new String[] {"5\n4\n", "5\nx\n", "5\n-1\n", "5\n86400001\n"}) {
            Path file = Files.writeString(dir.resolve("bad.down"), bad);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LinkTrace.read(file, 10));
            assertTrue(e.getMessage().contains("bad.down:2"), e.getMessage());
        }
    }

    @Test
    void realTrace_lastsAsLongAsItsLastDelivery() throws IOException {
        LinkTrace trace = LinkTrace.read(TraceData.trace(), 10);
        // Its last line is 928424 ms: 92842 whole bins of 10 ms, 90 windows of 1024 bins.
        assertEquals(92_842, trace.packetsPerBin().length);
        assertEquals(90, trace.windows(1024).size());
    }
}
