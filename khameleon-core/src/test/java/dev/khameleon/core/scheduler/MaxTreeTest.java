package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link MaxTree} agrees with a linear scan of its leaves. */
class MaxTreeTest {

    @Test
    void maxAndLeftmostAtLeast_matchALinearScan() {
        SplittableRandom rnd = new SplittableRandom(4);
        for (int leaves : new int[] {1, 2, 5, 64, 100}) {
            MaxTree tree = new MaxTree(leaves);
            double[] values = new double[leaves];
            for (int step = 0; step < 2000; step++) {
                int k = rnd.nextInt(leaves);
                values[k] = rnd.nextInt(4) == 0 ? 0.0 : rnd.nextInt(20) / 7.0;
                tree.set(k, values[k]);
                double max = 0;
                for (double v : values) {
                    max = Math.max(max, v);
                }
                assertEquals(max, tree.max(), "leaves " + leaves + ", step " + step);
                double factor = 0.5 + rnd.nextDouble();
                double threshold = rnd.nextDouble() * 3 * factor;
                int expected = -1;
                for (int i = 0; i < leaves && expected < 0; i++) {
                    if (factor * values[i] >= threshold) {
                        expected = i;
                    }
                }
                assertEquals(expected, tree.leftmostAtLeast(factor, threshold), "leaves " + leaves + ", step " + step);
            }
        }
    }
}
