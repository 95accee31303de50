package dev.khameleon.simulator;

import dev.khameleon.client.KalmanPredictor;

/**
 * The client predictor's settings a simulation may change, each NaN for the
 * {@link KalmanPredictor}'s own default, so a configuration that sets none describes the
 * predictor the library ships. Immutable.
 *
 * @param processNoise        the process noise {@code q} (px²/s³), finite and {@code > 0}, or NaN
 * @param velocityDecayMillis the velocity decay time constant (ms), finite and {@code >= 0}, or NaN
 * @param alongTrackSpread    the spread along the predicted displacement
 *                            ({@link KalmanPredictor.Builder#alongTrackSpread}), finite and
 *                            {@code >= 0}, or NaN
 */
public record KalmanSettings(double processNoise, double velocityDecayMillis, double alongTrackSpread) {
    /** Every setting the library's. */
    public static final KalmanSettings LIBRARY = new KalmanSettings(Double.NaN, Double.NaN, Double.NaN);

    /**
     * Checks each setting; the messages name them as {@link SimConfig.Builder}'s setters do
     * ({@code kalmanProcessNoise}, {@code kalmanVelocityDecayMillis}, {@code kalmanAlongTrackSpread}).
     *
     * @throws IllegalArgumentException for a value out of range
     */
    public KalmanSettings {
        check("kalmanProcessNoise", processNoise, processNoise > 0, "> 0");
        check("kalmanVelocityDecayMillis", velocityDecayMillis, velocityDecayMillis >= 0, ">= 0");
        check("kalmanAlongTrackSpread", alongTrackSpread, alongTrackSpread >= 0, ">= 0");
    }

    private static void check(String name, double value, boolean inRange, String range) {
        if (!Double.isNaN(value) && (!inRange || Double.isInfinite(value))) {
            throw new IllegalArgumentException(name + " must be finite and " + range + " (or NaN), was " + value);
        }
    }

    /** These settings with the process noise {@code q}. */
    public KalmanSettings withProcessNoise(double q) {
        return new KalmanSettings(q, velocityDecayMillis, alongTrackSpread);
    }

    /** These settings with the velocity decay {@code millis}. */
    public KalmanSettings withVelocityDecayMillis(double millis) {
        return new KalmanSettings(processNoise, millis, alongTrackSpread);
    }

    /** These settings with the spread along the predicted displacement {@code k}. */
    public KalmanSettings withAlongTrackSpread(double k) {
        return new KalmanSettings(processNoise, velocityDecayMillis, k);
    }

    /** A new predictor at {@code horizonsMillis} with these settings (the library's where NaN). */
    public KalmanPredictor predictor(long[] horizonsMillis) {
        KalmanPredictor.Builder b = KalmanPredictor.builder().horizons(horizonsMillis);
        if (!Double.isNaN(processNoise)) {
            b.processNoise(processNoise);
        }
        if (!Double.isNaN(velocityDecayMillis)) {
            b.velocityDecayMillis(velocityDecayMillis);
        }
        if (!Double.isNaN(alongTrackSpread)) {
            b.alongTrackSpread(alongTrackSpread);
        }
        return b.build();
    }
}
