package dev.khameleon.examples.timeseries;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The real trace the tests use; a test skips, naming the path, when the project's data is absent. */
final class SharedData {
    private SharedData() {
    }

    /** The T-Mobile UMTS downlink recorded while driving (Mahimahi), the app's default. */
    static Path trace() {
        Path file = Path.of(System.getProperty("khameleon.shared.data", "../shared/data"),
                "network", "mahimahi", "TMobile-UMTS-driving.down");
        Assumptions.assumeTrue(Files.isRegularFile(file), "cellular trace absent: " + file.toAbsolutePath());
        return file;
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
