package dev.khameleon.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** How a metrics snapshot prints: a figure without samples reads n/a, a measured 0 reads 0. */
class ClientMetricsTest {
    private final MetricsRecorder recorder = new MetricsRecorder();

    @Test
    void toString_beforeAnything_saysNaForEveryFigureThatHasNoSample() {
        assertEquals("ClientMetrics[registrations=0, hitRate=n/a, preempted=n/a, latency p50=n/a p99=n/a, "
                + "utility@first=n/a, convergence p50=n/a, received=0, overPush=n/a, accuracy=n/a, "
                + "upcallFailures=0]", recorder.snapshot().toString());
    }

    @Test
    void toString_measuredZeros_printAsNumbers() {
        recorder.registered(false);
        recorder.block(true);
        recorder.upcall(true, 0, 0.0, 1);
        recorder.predictionAccuracy(0.0);
        recorder.converged(0);
        assertEquals("ClientMetrics[registrations=1, hitRate=0.000, preempted=0.000, latency p50=0.00 ms "
                + "p99=0.00 ms, utility@first=0.000, convergence p50=0.0 ms, received=1, overPush=0.000, "
                + "accuracy=0.000, upcallFailures=0]", recorder.snapshot().toString());
    }

    @Test
    void toString_figuresMeasuredSeparately_eachSaysNaUntilItsOwnSample() {
        recorder.registered(true);
        recorder.block(true);
        String s = recorder.snapshot().toString();
        assertEquals("ClientMetrics[registrations=1, hitRate=1.000, preempted=0.000, latency p50=n/a p99=n/a, "
                + "utility@first=n/a, convergence p50=n/a, received=1, overPush=1.000, accuracy=n/a, "
                + "upcallFailures=0]", s);
    }

    @Test
    void convergenceSamples_countsConvergedRequests() {
        recorder.converged(5);
        recorder.converged(7);
        assertEquals(2, recorder.snapshot().convergenceSamples());
    }
}
