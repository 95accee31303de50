package dev.khameleon.examples.crossfilter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A moment of a recorded session: the tile in use (active view, other views' brushes) and the
 * non-empty brush on the active view.
 *
 * @param key  the tile that answers this state
 * @param from first brushed pixel of the active view
 * @param to   pixel after the last brushed one ({@code > from})
 */
public record BrushState(TileKey key, int from, int to) {

    /**
     * Every state of {@code workflows} with a non-empty brush (an empty brush shows the totals,
     * which every prefix of a tile has exactly), in order.
     */
    public static List<BrushState> all(List<Workflow> workflows) {
        List<BrushState> out = new ArrayList<>();
        for (Workflow w : workflows) {
            List<Filters> after = w.filtersAfter();
            for (int i = 0; i < w.events().size(); i++) {
                BrushEvent e = w.events().get(i);
                if (!e.isEmpty()) {
                    out.add(new BrushState(new TileKey(e.view(), after.get(i)), e.from(), e.to()));
                }
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** {@code count} of {@code states} drawn without replacement, seeded (all of them if fewer). */
    public static List<BrushState> sample(List<BrushState> states, int count, long seed) {
        List<BrushState> copy = new ArrayList<>(states);
        SplittableRandom random = new SplittableRandom(seed);
        int n = Math.min(count, copy.size());
        for (int i = 0; i < n; i++) {
            Collections.swap(copy, i, i + random.nextInt(copy.size() - i));
        }
        return Collections.unmodifiableList(new ArrayList<>(copy.subList(0, n)));
    }
}
