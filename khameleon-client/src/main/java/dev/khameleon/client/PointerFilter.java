package dev.khameleon.client;

import org.ejml.data.DMatrixRMaj;
import org.ejml.dense.row.CommonOps_DDRM;

/**
 * The linear Kalman filter behind {@link KalmanPredictor}: the state {@code [x, y, vx, vy]} or
 * {@code [x, y, vx, vy, ax, ay]}, its covariance, the exact discretisation of each model's process
 * noise and the Joseph-form update. {@link KalmanPredictor} documents the model; this class holds
 * its arithmetic, so the predictor keeps to events, rest and forecasts. Not thread-safe.
 */
final class PointerFilter {
    /** Prior variance of the position before the first sample: effectively unknown. */
    private static final double UNKNOWN_POSITION_VARIANCE = 1e12;

    private final int d;
    private final double q;
    private final double r;
    private final double velocitySigma;
    private final double accelerationSigma;
    /** Velocity decay time constant in seconds; 0 for none. */
    private final double tau;

    /** The state's mean. */
    final DMatrixRMaj x;
    /** The state's covariance. */
    final DMatrixRMaj p;
    private final DMatrixRMaj f;
    private final DMatrixRMaj qm;
    private final DMatrixRMaj work;
    private final DMatrixRMaj meanWork;
    private final DMatrixRMaj priorX;
    private final DMatrixRMaj priorP;
    private final DMatrixRMaj gain;
    private final DMatrixRMaj ikh;

    /**
     * @param d                 4 (constant velocity) or 6 (constant acceleration)
     * @param q                 process noise spectral density
     * @param r                 measurement noise variance per coordinate, px²
     * @param velocitySigma     initial velocity standard deviation, px/s
     * @param accelerationSigma initial acceleration standard deviation, px/s² (d = 6 only)
     * @param tau               velocity decay time constant, s; 0 for none (d = 4 only)
     */
    PointerFilter(int d, double q, double r, double velocitySigma, double accelerationSigma, double tau) {
        this.d = d;
        this.q = q;
        this.r = r;
        this.velocitySigma = velocitySigma;
        this.accelerationSigma = accelerationSigma;
        this.tau = tau;
        this.x = new DMatrixRMaj(d, 1);
        this.p = new DMatrixRMaj(d, d);
        this.f = new DMatrixRMaj(d, d);
        this.qm = new DMatrixRMaj(d, d);
        this.work = new DMatrixRMaj(d, d);
        this.meanWork = new DMatrixRMaj(d, 1);
        this.priorX = new DMatrixRMaj(d, 1);
        this.priorP = new DMatrixRMaj(d, d);
        this.gain = new DMatrixRMaj(d, 2);
        this.ikh = new DMatrixRMaj(d, d);
    }

    /** Starts afresh at {@code (px, py)}: velocity (and acceleration) 0, the position measured once. */
    void start(double px, double py) {
        x.zero();
        x.set(0, px);
        x.set(1, py);
        p.zero();
        p.set(0, 0, UNKNOWN_POSITION_VARIANCE);
        p.set(1, 1, UNKNOWN_POSITION_VARIANCE);
        p.set(2, 2, velocitySigma * velocitySigma);
        p.set(3, 3, velocitySigma * velocitySigma);
        if (d == 6) {
            p.set(4, 4, accelerationSigma * accelerationSigma);
            p.set(5, 5, accelerationSigma * accelerationSigma);
        }
        // The prior of a later sample at this same instant: no measurement yet.
        priorX.setTo(x);
        priorP.setTo(p);
        p.set(0, 0, r);
        p.set(1, 1, r);
    }

    /** {@code mean ← F mean, cov ← F cov Fᵀ + Q} for a step of {@code dt} seconds. */
    void predict(DMatrixRMaj mean, DMatrixRMaj cov, double dt) {
        CommonOps_DDRM.setIdentity(f);
        qm.zero();
        for (int a = 0; a < 2; a++) {
            int pos = a;
            int vel = 2 + a;
            f.set(pos, vel, dt);
            if (d == 4 && tau > 0) {
                // Velocity decays towards 0 with time constant tau (integrated Ornstein–Uhlenbeck):
                // exact discretisation of dv = −v/tau dt + dW.
                double decay = Math.exp(-dt / tau);
                f.set(pos, vel, tau * (1 - decay));
                f.set(vel, vel, decay);
                setSymmetric(pos, pos, q * tau * tau * tau / 2 * (2 * dt / tau - 3 + 4 * decay - decay * decay));
                setSymmetric(pos, vel, q * tau * tau / 2 * (1 - decay) * (1 - decay));
                setSymmetric(vel, vel, q * tau / 2 * (1 - decay * decay));
            } else if (d == 4) {
                qm.set(pos, pos, q * dt * dt * dt / 3);
                qm.set(pos, vel, q * dt * dt / 2);
                qm.set(vel, pos, q * dt * dt / 2);
                qm.set(vel, vel, q * dt);
            } else {
                int acc = 4 + a;
                f.set(pos, acc, dt * dt / 2);
                f.set(vel, acc, dt);
                double dt2 = dt * dt;
                double dt3 = dt2 * dt;
                setSymmetric(pos, pos, q * dt3 * dt2 / 20);
                setSymmetric(pos, vel, q * dt2 * dt2 / 8);
                setSymmetric(pos, acc, q * dt3 / 6);
                setSymmetric(vel, vel, q * dt3 / 3);
                setSymmetric(vel, acc, q * dt2 / 2);
                setSymmetric(acc, acc, q * dt);
            }
        }
        CommonOps_DDRM.mult(f, mean, meanWork);
        mean.setTo(meanWork);
        CommonOps_DDRM.mult(f, cov, work);
        CommonOps_DDRM.multTransB(work, f, cov);
        CommonOps_DDRM.addEquals(cov, qm);
    }

    private void setSymmetric(int i, int j, double v) {
        qm.set(i, j, v);
        qm.set(j, i, v);
    }

    /** Measurement update with the observed position (H selects x and y). */
    void update(double zx, double zy) {
        // S = H P Hᵀ + R is P's top-left 2×2 block plus r·I; invert it in closed form.
        double s00 = p.get(0, 0) + r;
        double s01 = (p.get(0, 1) + p.get(1, 0)) / 2;
        double s11 = p.get(1, 1) + r;
        double det = s00 * s11 - s01 * s01;
        double i00 = s11 / det;
        double i01 = -s01 / det;
        double i11 = s00 / det;
        // K = P Hᵀ S⁻¹: P's first two columns times S⁻¹.
        for (int i = 0; i < d; i++) {
            double a = p.get(i, 0);
            double b = p.get(i, 1);
            gain.set(i, 0, a * i00 + b * i01);
            gain.set(i, 1, a * i01 + b * i11);
        }
        double ix = zx - x.get(0);
        double iy = zy - x.get(1);
        for (int i = 0; i < d; i++) {
            x.set(i, x.get(i) + gain.get(i, 0) * ix + gain.get(i, 1) * iy);
        }
        // Joseph form: P = (I − KH) P (I − KH)ᵀ + K R Kᵀ.
        CommonOps_DDRM.setIdentity(ikh);
        for (int i = 0; i < d; i++) {
            ikh.set(i, 0, ikh.get(i, 0) - gain.get(i, 0));
            ikh.set(i, 1, ikh.get(i, 1) - gain.get(i, 1));
        }
        CommonOps_DDRM.mult(ikh, p, work);
        CommonOps_DDRM.multTransB(work, ikh, p);
        for (int i = 0; i < d; i++) {
            for (int j = 0; j < d; j++) {
                p.add(i, j, r * (gain.get(i, 0) * gain.get(j, 0) + gain.get(i, 1) * gain.get(j, 1)));
            }
        }
    }

    /** Predicts the state {@code dt} seconds on and keeps it as the prior of the next update. */
    void step(double dt) {
        predict(x, p, dt);
        priorX.setTo(x);
        priorP.setTo(p);
    }

    /** Goes back to the prior of the last update, so a sample at the same instant supersedes it. */
    void restorePrior() {
        x.setTo(priorX);
        p.setTo(priorP);
    }
}
