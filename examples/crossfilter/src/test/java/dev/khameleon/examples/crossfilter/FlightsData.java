package dev.khameleon.examples.crossfilter;

import dev.khameleon.testing.SharedData;

import java.nio.file.Path;

/** The real data the tests read, from the shared data; a test whose data is absent is skipped, naming the path. */
final class FlightsData {
    private FlightsData() {
    }

    /** The 10,000-row flights table. */
    static Path flightsCsv() {
        return SharedData.requireFile("datasets/flights/flights-10k.csv", "flights data");
    }

    /** The crossfilter benchmark's recorded brushing workflows over the flights views. */
    static Path workflows() {
        return SharedData.requireDirectory("crossfilter/flights/workflows", "crossfilter workflows");
    }

    /** The geometry (pixel widths) of the benchmark's views. */
    static Path viewsGeometry() {
        return SharedData.requireFile("crossfilter/views/views.json.gz", "crossfilter views geometry");
    }
}
