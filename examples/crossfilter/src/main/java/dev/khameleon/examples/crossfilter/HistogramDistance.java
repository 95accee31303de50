package dev.khameleon.examples.crossfilter;

/** Total-variation distance between two histograms, each normalised to a distribution. */
final class HistogramDistance {
    private HistogramDistance() {
    }

    /**
     * {@code ½ Σ |e_i/E − a_i/A|} in {@code [0, 1]}; 0 when both are empty, 1 when exactly one
     * is (an empty chart where there should be bars, or the reverse, is entirely wrong).
     */
    static double tvd(int[] exact, double[] approx) {
        double e = 0;
        double a = 0;
        for (int i = 0; i < exact.length; i++) {
            e += exact[i];
            a += Math.max(0, approx[i]);
        }
        if (e == 0 || a == 0) {
            return e == 0 && a == 0 ? 0 : 1;
        }
        double d = 0;
        for (int i = 0; i < exact.length; i++) {
            d += Math.abs(exact[i] / e - Math.max(0, approx[i]) / a);
        }
        return Math.min(1, d / 2);
    }
}
