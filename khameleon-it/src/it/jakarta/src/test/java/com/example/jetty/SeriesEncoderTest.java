package com.example.jetty;

import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.core.testkit.ProgressiveEncoderContract;
import java.util.List;

/** The chart encoder keeps the {@link ProgressiveEncoder} contract. */
class SeriesEncoderTest extends ProgressiveEncoderContract<double[]> {
    @Override protected ProgressiveEncoder<double[]> encoder() { return new SeriesEncoder(96); }
    @Override protected List<double[]> sampleResponses() {
        return List.of(new double[1000], ChartsServer.query(3), new double[1]);
    }
}
