package dev.khameleon.simulator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The systems the simulator can run, by name: the paper's baselines and Khameleon variants.
 * {@code acc-A-K} is a family: any accuracy {@code A} in {@code [0, 1]} and prefetch count
 * {@code K >= 1}, e.g. {@code acc-0.8-1}, {@code acc-1-5}; so is {@code stroke-end-oracle-W[-E[-S]]}, Khameleon
 * told where each stroke stops during its last {@code W} ms (1 to 10,000), {@code E} px off (0 to 1,000,
 * default 0: the cell itself), with {@code S} percent of the mass (1 to 100, default 100), e.g.
 * {@code stroke-end-oracle-150} or {@code stroke-end-oracle-150-10-50}. Thread-safe (immutable).
 */
public final class SystemRegistry {
    private static final Pattern ACC = Pattern.compile("acc-([0-9.]+)-([0-9]+)");
    private static final Pattern STROKE_END = Pattern.compile("stroke-end-oracle-([0-9]{1,6})(?:-([0-9]{1,6})(?:-([0-9]{1,6}))?)?");
    /** The longest window a {@code stroke-end-oracle-W} may have, ms. */
    static final int MAX_STROKE_END_MILLIS = 10_000;
    /** The largest error a {@code stroke-end-oracle-W-E} may be told the end with, px. */
    static final int MAX_STROKE_END_ERROR_PX = 1_000;
    private static final Map<String, Supplier<SimSystem>> FIXED = new LinkedHashMap<>();

    static {
        FIXED.put("khameleon", () -> PushSystem.khameleon());
        FIXED.put("ideal-sender", () -> PushSystem.idealSender());
        FIXED.put("oracle", () -> PushSystem.oracle());
        FIXED.put("uniform", () -> PushSystem.uniform());
        FIXED.put("predictor-only", () -> PushSystem.predictorOnly());
        FIXED.put("baseline", () -> new RequestResponseSystem(false, 0, 0));
        FIXED.put("progressive", () -> new RequestResponseSystem(true, 0, 0));
    }

    private SystemRegistry() {
    }

    /** The fixed names plus the paper's three ACC settings, in a stable order. */
    public static List<String> names() {
        List<String> names = new java.util.ArrayList<>(FIXED.keySet());
        names.addAll(List.of("acc-0.8-1", "acc-1-1", "acc-1-5"));
        return names;
    }

    /**
     * A fresh system for one run.
     *
     * @throws IllegalArgumentException for an unknown name or an ACC setting out of range;
     *     the message lists the known names
     */
    public static SimSystem create(String name) {
        Supplier<SimSystem> s = FIXED.get(name);
        if (s != null) {
            return s.get();
        }
        Matcher m = ACC.matcher(name);
        if (m.matches()) {
            double accuracy;
            int k;
            try {
                accuracy = Double.parseDouble(m.group(1));
                k = Integer.parseInt(m.group(2));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad ACC system name " + name + "; expected acc-A-K", e);
            }
            if (!(accuracy >= 0 && accuracy <= 1) || k < 1) {
                throw new IllegalArgumentException("system " + name + ": accuracy must be in [0, 1] and K >= 1");
            }
            return new RequestResponseSystem(false, accuracy, k);
        }
        Matcher e = STROKE_END.matcher(name);
        if (e.matches()) {
            int w = Integer.parseInt(e.group(1));
            int errorPx = e.group(2) == null ? 0 : Integer.parseInt(e.group(2));
            int share = e.group(3) == null ? 100 : Integer.parseInt(e.group(3));
            if (w < 1 || w > MAX_STROKE_END_MILLIS) {
                throw new IllegalArgumentException("system " + name + ": the window must be 1 to "
                        + MAX_STROKE_END_MILLIS + " ms");
            }
            if (errorPx > MAX_STROKE_END_ERROR_PX) {
                throw new IllegalArgumentException("system " + name + ": the error must be 0 to "
                        + MAX_STROKE_END_ERROR_PX + " px");
            }
            if (share < 1 || share > 100) {
                throw new IllegalArgumentException("system " + name + ": the share must be 1 to 100 %");
            }
            return PushSystem.strokeEndOracle(name, w, errorPx, share);
        }
        throw new IllegalArgumentException("unknown system " + name + "; known: " + String.join(", ", names())
                + " (acc-A-K for any accuracy A and prefetch K, stroke-end-oracle-W[-E[-S]] for a window of W ms, an error of E px, S % of the mass)");
    }

    /** Validates a name without creating a system. */
    public static void check(String name) {
        create(name);
    }
}
