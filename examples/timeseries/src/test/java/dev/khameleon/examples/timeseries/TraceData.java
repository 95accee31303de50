package dev.khameleon.examples.timeseries;

import dev.khameleon.testing.SharedData;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/** The real trace the tests use, from the shared data; a test skips, naming the path, when it is absent. */
final class TraceData {
    private TraceData() {
    }

    /** The T-Mobile UMTS downlink recorded while driving (Mahimahi), the app's default. */
    static Path trace() {
        return SharedData.requireFile("network/mahimahi/TMobile-UMTS-driving.down", "cellular trace");
    }

    /** That trace's windows, as the app cuts them. */
    static List<int[]> windows() {
        try {
            return LinkTrace.read(trace(), TimeseriesApp.BIN_MILLIS).windows(TimeseriesApp.WINDOW_POINTS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
