package dev.khameleon.core.predict;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.khameleon.core.Horizons;

import java.util.ArrayList;
import java.util.List;

/**
 * The state a Gaussian pointer predictor's client half sends: the current pointer position and
 * one bivariate Gaussian per horizon. This class is the one place that defines its JSON form:
 *
 * <pre>{@code
 * {"x": 512.0, "y": 300.0,
 *  "rest": 120,                      // optional: ms without movement, omitted (0) while moving
 *  "horizons": [50, 150, 250, 500],
 *  "mean": [[mx, my], ...],          // one per horizon
 *  "cov":  [[varX, covXY, varY], ...]} // one per horizon
 * }</pre>
 *
 * <p>A state with no position yet (before the first event) is the empty object {@code {}};
 * see {@link #isEmptyState}.
 *
 * @param x         current pointer x in pixels
 * @param y         current pointer y in pixels
 * @param horizons  one Gaussian per horizon, horizons strictly increasing; immutable copy
 * @param restMillis how long the pointer has been at rest, in ms, in {@code [0, MAX_REST_MILLIS]};
 *                   0 while it moves (and from clients that do not report rest)
 */
public record PointerForecast(double x, double y, List<GaussianAtHorizon> horizons, long restMillis) {
    /** The longest rest a state may report, one day in milliseconds; more is refused as malformed. */
    public static final long MAX_REST_MILLIS = 86_400_000L;

    /** A forecast of a moving pointer (or one whose client does not report rest): {@code restMillis} 0. */
    public PointerForecast(double x, double y, List<GaussianAtHorizon> horizons) {
        this(x, y, horizons, 0);
    }

    /** The most horizons a state may carry; more is refused as malformed. */
    public static final int MAX_HORIZONS = 32;

    /**
     * Validates and copies.
     *
     * @throws IllegalArgumentException if the position is not finite, there are no horizons or
     *     more than {@link #MAX_HORIZONS}, horizons do not strictly increase, or restMillis is
     *     outside {@code [0, MAX_REST_MILLIS]}
     */
    public PointerForecast {
        if (restMillis < 0 || restMillis > MAX_REST_MILLIS) {
            throw new IllegalArgumentException("restMillis must be in [0, " + MAX_REST_MILLIS + "], was " + restMillis);
        }
        if (!Double.isFinite(x) || !Double.isFinite(y)) {
            throw new IllegalArgumentException("pointer position must be finite, was (" + x + ", " + y + ")");
        }
        horizons = List.copyOf(horizons);
        if (horizons.isEmpty() || horizons.size() > MAX_HORIZONS) {
            throw new IllegalArgumentException("a forecast needs 1.." + MAX_HORIZONS + " horizons, got " + horizons.size());
        }
        for (int j = 1; j < horizons.size(); j++) {
            if (horizons.get(j).horizonMillis() <= horizons.get(j - 1).horizonMillis()) {
                throw new IllegalArgumentException("horizons must be strictly increasing, but " + horizons.get(j).horizonMillis()
                        + " ms follows " + horizons.get(j - 1).horizonMillis() + " ms");
            }
        }
    }

    /**
     * Validates a horizon list for a forecast: 1 to {@link #MAX_HORIZONS} entries, non-negative,
     * strictly increasing. Returns a copy.
     *
     * @throws IllegalArgumentException naming {@code setting} and the bad list
     */
    public static long[] checkHorizons(String setting, long... horizonsMillis) {
        if (horizonsMillis.length == 0 || horizonsMillis.length > MAX_HORIZONS) {
            throw new IllegalArgumentException(setting + " must have 1.." + MAX_HORIZONS + " entries, had "
                    + horizonsMillis.length);
        }
        return Horizons.check(setting, horizonsMillis);
    }

    /** Whether {@code state} is the "no position yet" state {@code {}}. */
    public static boolean isEmptyState(JsonNode state) {
        return state != null && state.isObject() && state.isEmpty();
    }

    /** The JSON form described in the class comment. */
    public ObjectNode toJson() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode o = f.objectNode();
        o.put("x", x);
        o.put("y", y);
        if (restMillis > 0) {
            o.put("rest", restMillis);
        }
        ArrayNode hs = o.putArray("horizons");
        ArrayNode means = o.putArray("mean");
        ArrayNode covs = o.putArray("cov");
        for (GaussianAtHorizon g : horizons) {
            hs.add(g.horizonMillis());
            means.addArray().add(g.meanX()).add(g.meanY());
            covs.addArray().add(g.varX()).add(g.covXY()).add(g.varY());
        }
        return o;
    }

    /**
     * Parses and validates the JSON form; the input is untrusted (it comes from the network).
     *
     * @throws IllegalArgumentException if anything is missing, of the wrong type or shape, not
     *     finite, a negative variance, a covariance that is not positive semi-definite, or too
     *     many horizons; the message names the field
     */
    public static PointerForecast fromJson(JsonNode state) {
        if (state == null || !state.isObject()) {
            throw new IllegalArgumentException("pointer forecast must be a JSON object, was " + kind(state));
        }
        double x = number(state.get("x"), "x");
        double y = number(state.get("y"), "y");
        JsonNode hs = array(state.get("horizons"), "horizons");
        JsonNode means = array(state.get("mean"), "mean");
        JsonNode covs = array(state.get("cov"), "cov");
        int m = hs.size();
        if (m < 1 || m > MAX_HORIZONS) {
            throw new IllegalArgumentException("\"horizons\" must have 1.." + MAX_HORIZONS + " entries, had " + m);
        }
        if (means.size() != m || covs.size() != m) {
            throw new IllegalArgumentException("\"mean\" and \"cov\" must have one entry per horizon (" + m + "), had "
                    + means.size() + " and " + covs.size());
        }
        List<GaussianAtHorizon> out = new ArrayList<>(m);
        for (int j = 0; j < m; j++) {
            JsonNode h = hs.get(j);
            if (!h.isIntegralNumber() || !h.canConvertToLong()) {
                throw new IllegalArgumentException("\"horizons\"[" + j + "] must be an integer of milliseconds, was " + h);
            }
            JsonNode mean = array(means.get(j), "mean[" + j + "]");
            JsonNode cov = array(covs.get(j), "cov[" + j + "]");
            if (mean.size() != 2) {
                throw new IllegalArgumentException("\"mean\"[" + j + "] must be [x, y], had " + mean.size() + " entries");
            }
            if (cov.size() != 3) {
                throw new IllegalArgumentException("\"cov\"[" + j + "] must be [varX, covXY, varY], had " + cov.size()
                        + " entries");
            }
            out.add(new GaussianAtHorizon(h.longValue(),
                    number(mean.get(0), "mean[" + j + "][0]"), number(mean.get(1), "mean[" + j + "][1]"),
                    number(cov.get(0), "cov[" + j + "][0]"), number(cov.get(1), "cov[" + j + "][1]"),
                    number(cov.get(2), "cov[" + j + "][2]")));
        }
        long rest = 0;
        JsonNode r = state.get("rest");
        if (r != null) {
            if (!r.isIntegralNumber() || !r.canConvertToLong() || r.longValue() < 0 || r.longValue() > MAX_REST_MILLIS) {
                throw new IllegalArgumentException("\"rest\" must be an integer of milliseconds in [0, " + MAX_REST_MILLIS
                        + "], was " + r);
            }
            rest = r.longValue();
        }
        return new PointerForecast(x, y, out, rest);
    }

    private static double number(JsonNode n, String field) {
        if (n == null || !n.isNumber()) {
            throw new IllegalArgumentException("\"" + field + "\" must be a number, was " + kind(n));
        }
        double v = n.doubleValue();
        if (!Double.isFinite(v)) {
            throw new IllegalArgumentException("\"" + field + "\" must be finite, was " + v);
        }
        return v;
    }

    private static JsonNode array(JsonNode n, String field) {
        if (n == null || !n.isArray()) {
            throw new IllegalArgumentException("\"" + field + "\" must be an array, was " + kind(n));
        }
        return n;
    }

    private static String kind(JsonNode n) {
        return n == null ? "missing" : n.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
    }
}
