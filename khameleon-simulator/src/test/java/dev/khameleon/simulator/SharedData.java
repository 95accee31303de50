package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/** Locates the shared real data ({@code khameleon.shared.data}); skips the test when absent. */
public final class SharedData {
    private SharedData() {
    }

    /** The file or directory {@code relative} under the shared data directory; skips if missing. */
    public static Path require(String relative) {
        String dir = System.getProperty("khameleon.shared.data", "../shared/data");
        Path p = Path.of(dir).resolve(relative);
        assumeTrue(Files.exists(p), "shared data not found: " + p.toAbsolutePath() + " (set khameleon.shared.data)");
        return p;
    }
}
