package dev.khameleon.core.testkit;

import dev.khameleon.core.spi.UtilityFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What every {@link UtilityFunction} promises: 0 at 0, 1 at 1, monotone, valid gains. */
public abstract class UtilityFunctionContract {

    /** The utility under test. */
    protected abstract UtilityFunction utility();

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 10, 97, 1000})
    void marginalGains_areNonNegativeAndSumToOne(int blockCount) {
        double[] g = utility().marginalGains(blockCount);
        assertEquals(blockCount + 1, g.length);
        double sum = 0;
        for (int b = 0; b < blockCount; b++) {
            assertTrue(g[b] >= 0 && Double.isFinite(g[b]), "g[" + b + "] = " + g[b]);
            sum += g[b];
        }
        assertEquals(0.0, g[blockCount], "no gain past the last block");
        assertEquals(1.0, sum, 1e-9);
    }

    @ParameterizedTest
    @ValueSource(ints = {10, 1000})
    void utility_isMonotoneFromZeroToOne(int steps) {
        UtilityFunction u = utility();
        assertEquals(0.0, u.utility(0.0), 1e-12);
        assertEquals(1.0, u.utility(1.0), 1e-12);
        double prev = 0;
        for (int i = 0; i <= steps; i++) {
            double v = u.utility((double) i / steps);
            assertTrue(v >= prev - 1e-12, "utility decreases at " + ((double) i / steps));
            prev = v;
        }
    }
}
