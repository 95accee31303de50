package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

/** Paths of the real data the tests read; a test whose data is absent is skipped, naming the path. */
final class SharedData {
    private SharedData() {
    }

    static Path root() {
        return Path.of(System.getProperty("khameleon.shared.data", "../shared/data"));
    }

    static Path flightsCsv() {
        Path p = root().resolve("datasets/flights/flights-10k.csv");
        Assumptions.assumeTrue(Files.isRegularFile(p), "flights data absent: " + p.toAbsolutePath());
        return p;
    }

    static Path workflows() {
        Path p = root().resolve("crossfilter/flights/workflows");
        Assumptions.assumeTrue(Files.isDirectory(p), "crossfilter workflows absent: " + p.toAbsolutePath());
        return p;
    }

    static Path viewsGeometry() {
        Path p = root().resolve("crossfilter/views/views.json.gz");
        Assumptions.assumeTrue(Files.isRegularFile(p), "crossfilter views geometry absent: " + p.toAbsolutePath());
        return p;
    }
}
