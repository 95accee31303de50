package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The sum tree behind the fast scheduler: exact totals and never a zero-weight draw. */
class SumTreeTest {

    @ParameterizedTest(name = "{0} leaves")
    @ValueSource(ints = {1, 2, 3, 7, 100, 1025})
    void sample_neverReturnsAZeroLeafAndTotalsStayExactAfterManyUpdates(int leaves) {
        SplittableRandom rng = new SplittableRandom(leaves);
        SumTree tree = new SumTree(leaves);
        double[] w = new double[leaves];
        for (int step = 0; step < 20_000; step++) {
            int k = rng.nextInt(leaves);
            // Mostly tiny and zero weights: where delta-updated Fenwick trees drift.
            w[k] = rng.nextInt(3) == 0 ? 0.0 : Math.pow(10, -rng.nextInt(12)) * rng.nextDouble();
            tree.set(k, w[k]);
            if (tree.total() > 0) {
                int drawn = tree.sample(rng.nextDouble() * tree.total());
                assertTrue(w[drawn] > 0, "drew leaf " + drawn + " of weight " + w[drawn]);
                // Even a draw at (or past) the very top of the range lands on a positive leaf.
                assertTrue(w[tree.sample(tree.total())] > 0);
            }
        }
        for (int k = 0; k < leaves; k++) {
            tree.set(k, 0.0);
        }
        assertEquals(0.0, tree.total(), "all-zero leaves sum to exactly zero");
    }

    @ParameterizedTest(name = "{0} leaves")
    @ValueSource(ints = {5, 64})
    void sample_drawsProportionallyToWeight(int leaves) {
        SplittableRandom rng = new SplittableRandom(3);
        SumTree tree = new SumTree(leaves);
        double[] w = new double[leaves];
        double sum = 0;
        for (int k = 0; k < leaves; k++) {
            w[k] = rng.nextInt(4) == 0 ? 0 : rng.nextDouble();
            sum += w[k];
        }
        tree.build(w);
        int draws = 50_000;
        long[] counts = new long[leaves];
        for (int i = 0; i < draws; i++) {
            counts[tree.sample(rng.nextDouble() * tree.total())]++;
        }
        double[] expected = new double[leaves];
        for (int k = 0; k < leaves; k++) {
            expected[k] = w[k] / sum;
        }
        double[] test = ChiSquare.goodnessOfFit(counts, expected, draws);
        assertTrue(test[0] < ChiSquare.critical((int) test[1]), "chi-square " + test[0]);
    }
}
