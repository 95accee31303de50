package dev.khameleon.core.predict;

/**
 * The standard normal density and distribution function, to double precision.
 *
 * <p>{@link #cdf} is Hart's rational approximation (algorithm 5666, 1968) in the form given by
 * G. West, "Better approximations to cumulative normal functions" (Wilmott, 2005): absolute
 * error below 1e-14 everywhere, computed from the tail towards the centre so that small tail
 * probabilities keep their relative precision.
 */
final class Normal {
    private static final double INV_SQRT_2PI = 0.3989422804014327;

    private Normal() {
    }

    /** The standard normal density at {@code z}. */
    static double pdf(double z) {
        return INV_SQRT_2PI * Math.exp(-0.5 * z * z);
    }

    /** {@code Φ(z)}, the standard normal distribution function; ±infinity map to 1 and 0. */
    static double cdf(double z) {
        double a = Math.abs(z);
        double tail;
        if (a > 37) {
            tail = 0;
        } else {
            double e = Math.exp(-a * a / 2);
            if (a < 7.07106781186547) {
                double num = 3.52624965998911e-02 * a + 0.700383064443688;
                num = num * a + 6.37396220353165;
                num = num * a + 33.912866078383;
                num = num * a + 112.079291497871;
                num = num * a + 221.213596169931;
                num = num * a + 220.206867912376;
                double den = 8.83883476483184e-02 * a + 1.75566716318264;
                den = den * a + 16.064177579207;
                den = den * a + 86.7807322029461;
                den = den * a + 296.564248779674;
                den = den * a + 637.333633378831;
                den = den * a + 793.826512519948;
                den = den * a + 440.413735824752;
                tail = e * num / den;
            } else {
                double c = a + 0.65;
                c = a + 4 / c;
                c = a + 3 / c;
                c = a + 2 / c;
                c = a + 1 / c;
                tail = e / c / 2.506628274631;
            }
        }
        if (Double.isNaN(z)) {
            return Double.NaN;
        }
        return z > 0 ? 1 - tail : tail;
    }
}
