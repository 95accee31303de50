package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Distribution;
import org.junit.jupiter.api.Test;

/** Distributions the simulator's client computes reach the push engine as states and decode to themselves. */
class DistributionStateTest {

    @Test
    void encodeThenDecode_givesTheSameProbabilities() {
        long[] horizons = {50, 150, 250, 500};
        Distribution d = Distribution.builder(100, horizons)
                .explicit(0, 7, 0.5).explicit(0, 9, 0.25).residual(0, 0.25)
                .explicit(1, 7, 1.0)
                .residual(2, 1.0)
                .explicit(3, 99, 0.125).residual(3, 0.875)
                .build();
        Distribution back = new DistributionState(null, 100, horizons).decode(DistributionState.encode(d));
        for (int j = 0; j < horizons.length; j++) {
            for (int id : new int[] {0, 7, 9, 42, 99}) {
                assertEquals(d.probability(j, id), back.probability(j, id), 1e-15, "horizon " + j + ", id " + id);
            }
            assertEquals(d.totalMass(j), back.totalMass(j), 1e-15);
        }
    }

    @Test
    void aPlainStateWithoutAServerHalf_isRefusedWithTheState() {
        DistributionState p = new DistributionState(null, 10, new long[] {50});
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> p.decode(JsonNodeFactory.instance.objectNode().put("x", 1)));
        assertEquals("expected a distribution state, got {\"x\":1}", e.getMessage());
    }
}
