package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.khameleon.core.Distribution;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HorizonShiftTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void shift_probabilityAtTEqualsTheOriginalAtTPlusLag(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int n = 50;
        long[] horizons = {50, 150, 250, 500};
        Distribution.Builder b = Distribution.builder(n, horizons);
        for (int j = 0; j < horizons.length; j++) {
            double left = 1;
            for (int k = 0; k < 5; k++) {
                double p = left * random.nextDouble() * 0.5;
                b.explicit(j, 10 * j + k, p);
                left -= p;
            }
            b.residual(j, left * random.nextDouble());
        }
        Distribution d = b.build();
        double lag = 20 + random.nextInt(600);
        Distribution s = HorizonShift.shift(d, lag);
        for (double t : new double[] {0, 10, 40, 120, 300, 700}) {
            for (int id = 0; id < n; id++) {
                assertEquals(d.probabilityAt(t + lag, id), s.probabilityAt(t, id), 1e-9,
                        "lag " + lag + ", t " + t + ", id " + id);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, -5})
    void shift_noLagIsIdentity(double lag) {
        Distribution d = Distribution.uniform(10, 50, 150);
        assertSame(d, HorizonShift.shift(d, lag));
        assertArrayEquals(new long[] {50, 150}, HorizonShift.shift(d, lag).horizonsMillis());
    }
}
