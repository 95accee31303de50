package dev.khameleon.loadtest.fleet;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A fleet's resource use as a function of its sessions, fitted on measured runs.
 *
 * <p>The model, for {@code S} sessions spread evenly over the nodes:
 * <ul>
 *   <li>Egress bytes/s, block reads/s and responses loaded below the memory tier (Redis reads plus
 *   origin computations) are each a per-session coefficient times {@code S}: a session costs the
 *   same wherever it runs. The coefficients are pooled over the calibration runs (sum of the
 *   quantity over the sum of sessions).</li>
 *   <li>CPU cores are {@code c_s · S + c_o · O}, {@code O} the fleet's origin computations per second:
 *   a node that computes a response (and stores it in Redis) works more than one that reads it, and
 *   the more nodes share Redis, the fewer computations each makes. Fitted by least squares without
 *   intercept; if that gives a negative coefficient (noise, or runs that do not separate the two),
 *   {@code c_o = 0} and {@code c_s} is pooled like the others. Either way a node's fixed cost (its
 *   idle JVM, timers) is spread over the sessions per node of the calibration, so extrapolated to
 *   more sessions per node the cores come out high, never low.</li>
 *   <li>Memory reads are the block reads times the memory tier's hit ratio, pooled over the runs:
 *   it depends on the sessions per node and the memory tier's size, which the calibration keeps
 *   fixed.</li>
 *   <li>Origin computations (database queries) of the fleet follow {@code a · S^α}, fitted by least
 *   squares on the logarithms: with a shared Redis tier the origin computes each response once for
 *   the whole fleet, so its load grows with the distinct content the sessions ask for, not with
 *   the sessions; {@code α = 1} means sessions share nothing, {@code α = 0} that they all ask for the
 *   same content. It never exceeds the responses loaded below memory; the rest are shared-tier
 *   reads: Redis reads and, with an object store below Redis, object-store reads, split by their
 *   share pooled over the calibration runs (it depends on Redis's size, which the calibration keeps
 *   fixed).</li>
 * </ul>
 * Immutable and thread-safe; every factory checks its input and names what is wrong.
 */
public final class FleetModel {
    private final double coresPerSession;
    private final double coresPerComputation;
    private final double egressPerSession;
    private final double readsPerSession;
    private final double memoryHitRatio;
    private final double loadsPerSession;
    private final double originScale;
    private final double originExponent;
    private final double objectStoreShare;

    private FleetModel(double coresPerSession, double coresPerComputation, double egressPerSession,
                       double readsPerSession, double memoryHitRatio, double loadsPerSession, double originScale,
                       double originExponent, double objectStoreShare) {
        this.coresPerSession = coresPerSession;
        this.coresPerComputation = coresPerComputation;
        this.egressPerSession = egressPerSession;
        this.readsPerSession = readsPerSession;
        this.memoryHitRatio = memoryHitRatio;
        this.loadsPerSession = loadsPerSession;
        this.originScale = originScale;
        this.originExponent = originExponent;
        this.objectStoreShare = objectStoreShare;
    }

    /**
     * What a fleet does per second: one measured run, or a prediction.
     *
     * @param nodes              server nodes
     * @param sessions           sessions open on them together
     * @param cores              CPU cores the node processes use together (CPU seconds per second)
     * @param egressBytes        block bytes the nodes push per second
     * @param blockReads         blocks the nodes read from their tier stacks per second
     * @param memoryReads        of those, blocks answered from the nodes' memory tiers
     * @param redisResponses     responses per second loaded from the shared Redis tier
     * @param originComputations responses per second computed at the origin (database queries)
     * @param objectStoreResponses responses per second loaded from the shared object store (below Redis)
     */
    public record FleetRates(int nodes, long sessions, double cores, double egressBytes, double blockReads,
                             double memoryReads, double redisResponses, double originComputations,
                             double objectStoreResponses) {
        /**
         * Checks the values.
         *
         * @throws IllegalArgumentException if {@code nodes} or {@code sessions} is below 1, a rate is
         *     negative or not finite, or more memory reads than block reads are given
         */
        public FleetRates {
            if (nodes < 1) {
                throw new IllegalArgumentException("nodes must be >= 1, was " + nodes);
            }
            if (sessions < 1) {
                throw new IllegalArgumentException("sessions must be >= 1, was " + sessions);
            }
            check("cores", cores);
            check("egressBytes", egressBytes);
            check("blockReads", blockReads);
            check("memoryReads", memoryReads);
            check("redisResponses", redisResponses);
            check("originComputations", originComputations);
            check("objectStoreResponses", objectStoreResponses);
            if (memoryReads > blockReads) {
                throw new IllegalArgumentException("memoryReads " + memoryReads + " exceed blockReads " + blockReads);
            }
        }

        /**
         * A fleet without an object store: {@code objectStoreResponses} is 0.
         *
         * @throws IllegalArgumentException as the canonical constructor
         */
        public FleetRates(int nodes, long sessions, double cores, double egressBytes, double blockReads,
                          double memoryReads, double redisResponses, double originComputations) {
            this(nodes, sessions, cores, egressBytes, blockReads, memoryReads, redisResponses, originComputations, 0);
        }

        /** Responses per second loaded below the memory tier: Redis and object-store reads plus origin computations. */
        public double loads() {
            return redisResponses + objectStoreResponses + originComputations;
        }

        /** The sum of several nodes' rates, each a one-node {@code FleetRates}. */
        public static FleetRates sum(List<FleetRates> nodeRates) {
            if (nodeRates.isEmpty()) {
                throw new IllegalArgumentException("no node rates to add up");
            }
            int nodes = 0;
            long sessions = 0;
            double[] s = new double[7];
            for (FleetRates r : nodeRates) {
                nodes += r.nodes;
                sessions += r.sessions;
                s[0] += r.cores;
                s[1] += r.egressBytes;
                s[2] += r.blockReads;
                s[3] += r.memoryReads;
                s[4] += r.redisResponses;
                s[5] += r.originComputations;
                s[6] += r.objectStoreResponses;
            }
            return new FleetRates(nodes, sessions, s[0], s[1], s[2], s[3], s[4], s[5], s[6]);
        }

        private static void check(String name, double v) {
            if (!(v >= 0) || Double.isInfinite(v)) {
                throw new IllegalArgumentException(name + " must be finite and >= 0, was " + v);
            }
        }
    }

    /** The quantities the model predicts, each read from a {@link FleetRates}. */
    public enum Quantity {
        /** CPU cores of the node processes. */
        CORES("CPU cores", "%.2f", FleetRates::cores),
        /** Egress, MB/s. */
        EGRESS("egress MB/s", "%.2f", r -> r.egressBytes() / 1e6),
        /** Block reads per second, all tiers. */
        BLOCK_READS("block reads/s", "%.0f", FleetRates::blockReads),
        /** Block reads per second answered from memory. */
        MEMORY_READS("memory block reads/s", "%.0f", FleetRates::memoryReads),
        /** Responses per second read from Redis. */
        REDIS_READS("Redis reads/s (responses)", "%.1f", FleetRates::redisResponses),
        /** Responses per second read from the object store. */
        OBJECT_STORE_READS("object-store reads/s (responses)", "%.1f", FleetRates::objectStoreResponses),
        /** Origin computations per second. */
        ORIGIN("origin computations/s", "%.1f", FleetRates::originComputations);

        private final String label;
        private final String format;
        private final ToDoubleFunction<FleetRates> value;

        Quantity(String label, String format, ToDoubleFunction<FleetRates> value) {
            this.label = label;
            this.format = format;
            this.value = value;
        }

        /** The quantity's name in tables, with its unit. */
        public String label() {
            return label;
        }

        /** Its value in {@code r}, in the unit of {@link #label}. */
        public double of(FleetRates r) {
            return value.applyAsDouble(r);
        }

        /** Its value in {@code r}, formatted for a table. */
        public String format(FleetRates r) {
            return String.format(Locale.ROOT, format, of(r));
        }
    }

    /**
     * Fits the model on measured runs.
     *
     * @throws IllegalArgumentException if fewer than two runs are given, they do not differ in their
     *     session counts, or a run has no block reads or no origin computation (the origin's power law
     *     needs a positive rate in every run)
     */
    public static FleetModel fit(List<FleetRates> runs) {
        if (runs.size() < 2) {
            throw new IllegalArgumentException("the model needs at least two calibration runs, got " + runs.size());
        }
        double sessions = 0;
        double cores = 0;
        double egress = 0;
        double reads = 0;
        double memory = 0;
        double loads = 0;
        double redisReads = 0;
        double objectReads = 0;
        double sx = 0;
        double sy = 0;
        double sxx = 0;
        double sxy = 0;
        double ss = 0;
        double so = 0;
        double oo = 0;
        double sc = 0;
        double oc = 0;
        for (FleetRates r : runs) {
            if (r.blockReads() == 0) {
                throw new IllegalArgumentException("calibration run with " + r.sessions() + " sessions on " + r.nodes()
                        + " nodes read no block: nothing to fit");
            }
            if (r.originComputations() == 0) {
                throw new IllegalArgumentException("calibration run with " + r.sessions() + " sessions on " + r.nodes()
                        + " nodes computed nothing at the origin: measure earlier or over more content");
            }
            sessions += r.sessions();
            cores += r.cores();
            egress += r.egressBytes();
            reads += r.blockReads();
            memory += r.memoryReads();
            loads += r.loads();
            redisReads += r.redisResponses();
            objectReads += r.objectStoreResponses();
            double x = Math.log(r.sessions());
            double y = Math.log(r.originComputations());
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
            ss += (double) r.sessions() * r.sessions();
            so += r.sessions() * r.originComputations();
            oo += r.originComputations() * r.originComputations();
            sc += r.sessions() * r.cores();
            oc += r.originComputations() * r.cores();
        }
        int n = runs.size();
        double varX = sxx - sx * sx / n;
        if (varX < 1e-12) {
            throw new IllegalArgumentException("the calibration runs all have " + runs.get(0).sessions()
                    + " sessions: the origin's growth needs runs of different sizes");
        }
        double alpha = (sxy - sx * sy / n) / varX;
        double logA = (sy - alpha * sx) / n;
        // Cores on sessions and origin computations: the 2×2 normal equations, solved by Cramer's rule.
        double det = ss * oo - so * so;
        double cs = det > 1e-9 * ss * oo ? (sc * oo - oc * so) / det : -1;
        double co = det > 1e-9 * ss * oo ? (oc * ss - sc * so) / det : -1;
        if (cs < 0 || co < 0) {
            cs = cores / sessions;
            co = 0;
        }
        return new FleetModel(cs, co, egress / sessions, reads / sessions, memory / reads, loads / sessions,
                Math.exp(logA), alpha, redisReads + objectReads > 0 ? objectReads / (redisReads + objectReads) : 0);
    }

    /**
     * The rates of {@code sessions} sessions spread over {@code nodes} nodes.
     *
     * @throws IllegalArgumentException if either is below 1
     */
    public FleetRates predict(int nodes, long sessions) {
        if (nodes < 1) {
            throw new IllegalArgumentException("nodes must be >= 1, was " + nodes);
        }
        if (sessions < 1) {
            throw new IllegalArgumentException("sessions must be >= 1, was " + sessions);
        }
        double reads = readsPerSession * sessions;
        double loads = loadsPerSession * sessions;
        double origin = Math.min(loads, originScale * Math.pow(sessions, originExponent));
        double shared = loads - origin;
        return new FleetRates(nodes, sessions, coresPerSession * sessions + coresPerComputation * origin,
                egressPerSession * sessions, reads,
                memoryHitRatio * reads, shared * (1 - objectStoreShare), origin, shared * objectStoreShare);
    }

    /**
     * The fleet for {@code sessions} sessions on nodes of {@code coresPerNode} cores and
     * {@code egressPerNode} bytes/s: the rates {@link #predict} gives, on as many nodes as the cores
     * or the egress need, whichever needs more (at least one).
     *
     * @throws IllegalArgumentException if {@code sessions} is below 1, a budget is not finite and
     *     positive, or more than {@link Integer#MAX_VALUE} nodes are needed
     */
    public FleetRates size(long sessions, double coresPerNode, double egressPerNode) {
        if (sessions < 1) {
            throw new IllegalArgumentException("sessions must be >= 1, was " + sessions);
        }
        if (!(coresPerNode > 0) || Double.isInfinite(coresPerNode)) {
            throw new IllegalArgumentException("cores per node must be finite and > 0, was " + coresPerNode);
        }
        if (!(egressPerNode > 0) || Double.isInfinite(egressPerNode)) {
            throw new IllegalArgumentException("egress per node must be finite and > 0, was " + egressPerNode);
        }
        FleetRates r = predict(1, sessions);
        // A hair below the quotient, so that exactly k nodes' worth is not rounded up to k + 1.
        double need = Math.max(r.cores() / coresPerNode, r.egressBytes() / egressPerNode) * (1 - 1e-12);
        double nodes = Math.max(1, Math.ceil(need));
        if (nodes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(sessions + " sessions need more than " + Integer.MAX_VALUE + " nodes");
        }
        return predict((int) nodes, sessions);
    }

    /** CPU cores per session ({@code c_s}). */
    public double coresPerSession() {
        return coresPerSession;
    }

    /** CPU cores per origin computation per second ({@code c_o}), 0 if the fit could not separate it. */
    public double coresPerComputation() {
        return coresPerComputation;
    }

    /** Egress bytes per second per session. */
    public double egressPerSession() {
        return egressPerSession;
    }

    /** Block reads per second per session. */
    public double readsPerSession() {
        return readsPerSession;
    }

    /** The share of block reads answered from memory, in [0, 1]. */
    public double memoryHitRatio() {
        return memoryHitRatio;
    }

    /** Responses per second per session loaded below the memory tier (Redis, object store or origin). */
    public double loadsPerSession() {
        return loadsPerSession;
    }

    /** The share of the responses read from a shared tier that came from the object store, in [0, 1]. */
    public double objectStoreShare() {
        return objectStoreShare;
    }

    /** {@code a} of the origin's {@code a · S^α}. */
    public double originScale() {
        return originScale;
    }

    /** {@code α} of the origin's {@code a · S^α}. */
    public double originExponent() {
        return originExponent;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "cores = %.4f * S + %.6f * origin computations/s; per session: %.0f B/s egress, %.2f block reads/s (%.1f %% from"
                        + " memory), %.3f responses/s below memory; origin computations/s = %.3f * S^%.3f; %.1f %% of the other loads from the object store",
                coresPerSession, coresPerComputation, egressPerSession, readsPerSession, memoryHitRatio * 100, loadsPerSession, originScale,
                originExponent, objectStoreShare * 100);
    }
}
