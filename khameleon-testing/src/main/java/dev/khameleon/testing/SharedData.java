package dev.khameleon.testing;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The project's shared data directory ({@code -Dkhameleon.shared.data}, default {@code ../shared/data}
 * relative to the working directory; the build sets it for every module's tests). A test whose data
 * is absent is skipped through JUnit's {@link Assumptions}, its reason naming the absolute path.
 */
public final class SharedData {
    /** The system property that locates the shared data directory. */
    public static final String PROPERTY = "khameleon.shared.data";

    private SharedData() {
    }

    /** The shared data directory, absolute and normalized; it may not exist. */
    public static Path root() {
        return Path.of(System.getProperty(PROPERTY, "../shared/data")).toAbsolutePath().normalize();
    }

    /**
     * The file or directory {@code relative} (e.g. {@code "datasets/flights/flights-10k.csv"}) under
     * {@link #root()}; skips the calling test, naming the absolute path, when it does not exist.
     */
    public static Path require(String relative) {
        Path p = root().resolve(relative);
        Assumptions.assumeTrue(Files.exists(p), "shared data not found at " + p);
        return p;
    }

    /**
     * The regular file {@code relative} under {@link #root()}; skips the calling test with
     * "{@code what} not found at <absolute path>" when it is not one.
     */
    public static Path requireFile(String relative, String what) {
        Path p = root().resolve(relative);
        Assumptions.assumeTrue(Files.isRegularFile(p), what + " not found at " + p);
        return p;
    }

    /**
     * The directory {@code relative} under {@link #root()}; skips the calling test with
     * "{@code what} not found at <absolute path>" when it is not one.
     */
    public static Path requireDirectory(String relative, String what) {
        Path p = root().resolve(relative);
        Assumptions.assumeTrue(Files.isDirectory(p), what + " not found at " + p);
        return p;
    }
}
