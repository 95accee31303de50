package dev.khameleon.core.predict;

/**
 * A bivariate Gaussian over the pointer position {@code horizonMillis} after a prediction was
 * made: mean {@code (meanX, meanY)} and covariance {@code [[varX, covXY], [covXY, varY]]} in
 * pixels and square pixels.
 *
 * @param horizonMillis how far ahead, in milliseconds, {@code >= 0}
 * @param meanX         mean horizontal position
 * @param meanY         mean vertical position
 * @param varX          variance of x, {@code >= 0}
 * @param covXY         covariance of x and y
 * @param varY          variance of y, {@code >= 0}
 */
public record GaussianAtHorizon(long horizonMillis, double meanX, double meanY, double varX, double covXY,
                                double varY) {
    /** Relative slack for {@code covXY² <= varX·varY}, for rounding in the filter that produced it. */
    public static final double PSD_TOLERANCE = 1e-9;

    /**
     * Validates: everything finite, horizon and variances non-negative, the covariance
     * positive semi-definite (within {@link #PSD_TOLERANCE}).
     *
     * @throws IllegalArgumentException naming the offending value
     */
    public GaussianAtHorizon {
        if (horizonMillis < 0) {
            throw new IllegalArgumentException("horizon must be >= 0 ms, was " + horizonMillis);
        }
        if (!Double.isFinite(meanX) || !Double.isFinite(meanY)) {
            throw new IllegalArgumentException("mean at horizon " + horizonMillis + " ms must be finite, was ("
                    + meanX + ", " + meanY + ")");
        }
        if (!Double.isFinite(varX) || !Double.isFinite(varY) || !Double.isFinite(covXY)) {
            throw new IllegalArgumentException("covariance at horizon " + horizonMillis + " ms must be finite, was ["
                    + varX + ", " + covXY + ", " + varY + "]");
        }
        if (varX < 0 || varY < 0) {
            throw new IllegalArgumentException("variance at horizon " + horizonMillis + " ms must be >= 0, was varX="
                    + varX + ", varY=" + varY);
        }
        if (covXY * covXY > varX * varY * (1 + PSD_TOLERANCE) + Double.MIN_NORMAL) {
            throw new IllegalArgumentException("covariance at horizon " + horizonMillis
                    + " ms is not positive semi-definite: covXY^2 = " + covXY * covXY + " > varX*varY = " + varX * varY);
        }
    }

    /** The correlation coefficient of x and y, in {@code [-1, 1]} (0 when a variance is 0). */
    public double correlation() {
        // Two roots, not the root of the product: varX·varY overflows for variances above ~1e154.
        double d = Math.sqrt(varX) * Math.sqrt(varY);
        return d == 0 ? 0 : Math.max(-1, Math.min(1, covXY / d));
    }
}
