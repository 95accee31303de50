package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.predict.TransitionPrior;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the live server knows about its users and its tiles: a view-transition prior learned from
 * the recorded sessions, the weight it gets against the pointer forecast, and the measured
 * utility of a tile prefix. {@link CrossfilterServer} mixes the prior into the layout predictor
 * ({@code (1 − w)·forecast + w·prior(view under the pointer)}) and schedules with the utility.
 *
 * @param prior       the next active view given the current one ({@code -1}: none yet)
 * @param priorWeight {@code w}, in {@code [0, 1]}
 * @param utility     the measured utility of a prefix of a tile
 */
public record ServingModel(TransitionPrior prior, double priorWeight, TileUtility utility) {
    /**
     * Default {@code w}: with the pointer resting on a chart, half the mass stays on it and half
     * follows the recorded habits, the split the replay's predicted push uses ({@code --stay 0.5}).
     */
    public static final double DEFAULT_PRIOR_WEIGHT = 0.5;
    /** Default number of recorded view activations whose tiles the utility is measured on. */
    public static final int DEFAULT_UTILITY_TILES = 12;
    /** Default number of recorded brush states the utility is averaged over. */
    public static final int DEFAULT_UTILITY_STATES = 200;

    /**
     * Validates.
     *
     * @throws IllegalArgumentException if the prior covers fewer than 2 views or the weight is
     *     not in {@code [0, 1]}
     */
    public ServingModel {
        Objects.requireNonNull(prior, "prior");
        Objects.requireNonNull(utility, "utility");
        if (prior.requestCount() < 2) {
            throw new IllegalArgumentException("the prior must cover at least 2 views, covers "
                    + prior.requestCount());
        }
        if (!(priorWeight >= 0 && priorWeight <= 1)) {
            throw new IllegalArgumentException("prior weight must be in [0, 1], was " + priorWeight);
        }
    }

    /**
     * The view-transition prior over {@code views} of {@code workflows}: each session's sequence of
     * activated views (its view switches, {@link Workflow#isViewSwitch}), add-one smoothed.
     */
    public static TransitionPrior transitions(Views views, List<Workflow> workflows) {
        List<int[]> sequences = new ArrayList<>(workflows.size());
        for (Workflow w : workflows) {
            sequences.add(activations(w).stream().mapToInt(i -> w.events().get(i).view().index()).toArray());
        }
        return TransitionPrior.learn(views.size(), sequences, 1.0);
    }

    /**
     * Learns the prior from {@code workflows} and measures the utility on the real tiles of
     * {@code tiles} distinct recorded view activations (drawn with {@code seed}, computed through
     * {@code cache}, so they are warm afterwards), averaged over {@code states} recorded brush
     * states of those tiles, at every whole-block fraction of {@code encoder}'s tiles.
     *
     * @throws IllegalArgumentException if {@code tiles} or {@code states} is below 1, the
     *     workflows hold no brush or are on other views than the cache's
     * @throws TimeoutException if the tiles are not computed within {@code timeoutSeconds}
     * @throws ExecutionException if a tile's queries fail
     */
    public static ServingModel learn(List<Workflow> workflows, TileCache cache, TileEncoder encoder, int tiles,
            int states, long seed, long timeoutSeconds)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (tiles < 1 || states < 1) {
            throw new IllegalArgumentException("tiles and states must be >= 1, were " + tiles + " and " + states);
        }
        Set<TileKey> activated = new LinkedHashSet<>();
        for (Workflow w : workflows) {
            if (!w.events().isEmpty() && w.events().get(0).view().views() != cache.views()) {
                throw new IllegalArgumentException(w.name() + " is on " + w.events().get(0).view().views()
                        + ", the cache on " + cache.views());
            }
            List<Filters> after = w.filtersAfter();
            for (int i : activations(w)) {
                activated.add(new TileKey(w.events().get(i).view(), after.get(i)));
            }
        }
        // Drawn among the recorded brush states whose tile is an activation's, so every chosen
        // tile has states to measure (BrushState.sample shuffles with the seed).
        List<BrushState> candidates = new ArrayList<>();
        for (BrushState s : BrushState.all(workflows)) {
            if (activated.contains(s.key())) {
                candidates.add(s);
            }
        }
        if (candidates.isEmpty()) {
            throw new IllegalArgumentException("the recorded sessions hold no non-empty brush to measure on");
        }
        Set<TileKey> chosen = new LinkedHashSet<>();
        for (BrushState s : BrushState.sample(candidates, candidates.size(), seed)) {
            if (chosen.size() == tiles) {
                break;
            }
            chosen.add(s.key());
        }
        Map<TileKey, CompletableFuture<Tile>> pending = new HashMap<>();
        for (TileKey k : chosen) {
            pending.put(k, cache.get(k));
        }
        CompletableFuture.allOf(pending.values().toArray(CompletableFuture[]::new)).get(timeoutSeconds,
                TimeUnit.SECONDS);
        List<BrushState> measured = new ArrayList<>();
        for (BrushState s : candidates) {
            if (chosen.contains(s.key())) {
                measured.add(s);
            }
        }
        TileUtility utility = TileUtility.measure(BrushState.sample(measured, states, seed),
                k -> pending.get(k).join(), encoder, TileUtility.blockFractions(encoder));
        return new ServingModel(transitions(cache.views(), workflows), DEFAULT_PRIOR_WEIGHT, utility);
    }

    /**
     * The probability of each view of {@code views} (by index) being a session's first brushed view in
     * {@code workflows}, add-one smoothed: what the server pushes before it knows anything of the
     * session.
     */
    public static double[] firstViews(Views views, List<Workflow> workflows) {
        double[] p = new double[views.size()];
        Arrays.fill(p, 1.0);
        double total = p.length;
        for (Workflow w : workflows) {
            if (!w.events().isEmpty()) {
                p[w.events().get(0).view().index()]++;
                total++;
            }
        }
        for (int v = 0; v < p.length; v++) {
            p[v] /= total;
        }
        return p;
    }

    private static List<Integer> activations(Workflow w) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < w.events().size(); i++) {
            if (w.isViewSwitch(i)) {
                out.add(i);
            }
        }
        return out;
    }
}
