package dev.khameleon.microbench;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Distribution;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The states {@link PredictorDecodeBenchmark} decodes are what its javadoc says they are. */
class PredictorDecodeBenchmarkTest {

    private static Distribution decode(String grid, String state) {
        PredictorDecodeBenchmark b = new PredictorDecodeBenchmark();
        b.grid = grid;
        b.state = state;
        b.setUp();
        return b.decode();
    }

    @ParameterizedTest
    @CsvSource({"30x40,resting", "30x40,moving", "30x40,wide", "1000x1000,resting", "1000x1000,moving",
        "1000x1000,wide"})
    void everyStateDecodes_withMostOfItsMassOnTheScreen(String grid, String state) throws Exception {
        Distribution d = decode(grid, state);
        for (int j = 0; j < d.horizonCount(); j++) {
            // A wide Gaussian has some of its mass beyond the screen, which the grid does not hold.
            double mass = d.totalMass(j);
            assertTrue(mass > 0.5 && mass <= 1 + 1e-6, grid + " " + state + " horizon " + j + ": " + mass);
        }
    }

    @Test
    void resting_isOnItsCell_moving_goesRight_andWide_givesNoCellMuch() throws Exception {
        int cell = 15 * 40 + 20; // (970, 550) on 48 x 36 px cells
        Distribution resting = decode("30x40", "resting");
        assertTrue(resting.probability(0, cell) > 0.9, "resting: " + resting.probability(0, cell));
        Distribution moving = decode("30x40", "moving");
        assertTrue(moving.probability(3, cell + 6) > moving.probability(3, cell),
                "moving: 300 px right at 500 ms, " + moving.probability(3, cell + 6) + " against " + moving.probability(3, cell));
        Distribution wide = decode("30x40", "wide");
        for (int k = 0; k < wide.explicitCount(3); k++) {
            assertTrue(wide.explicitProbability(3, k) < 0.05, "wide: " + wide.explicitProbability(3, k));
        }
    }

    @Test
    void anUnknownStateKind_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> PredictorDecodeBenchmark.state("flying"));
    }
}
