package dev.khameleon.examples.crossfilter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Falcon's data tile for one active view: with the brushes of the other views fixed, one
 * {@link Slice} per passive view, so every brush on the active view is answered by two row
 * look-ups per passive view, without a query. Immutable.
 *
 * @param key    the active view and the other views' brushes the tile was computed for
 * @param slices one slice per passive view, in view order
 */
public record Tile(TileKey key, List<Slice> slices) {
    /**
     * Validates that there is exactly one slice per passive view, in order.
     *
     * @throws IllegalArgumentException otherwise
     */
    public Tile {
        Objects.requireNonNull(key, "key");
        slices = List.copyOf(slices);
        List<View> expected = passives(key.active());
        List<View> actual = new ArrayList<>();
        slices.forEach(s -> actual.add(s.passive()));
        if (!expected.equals(actual)) {
            throw new IllegalArgumentException("tile of " + key.active() + " needs slices for " + expected
                    + ", had " + actual);
        }
    }

    /** The passive views of active view {@code active}: all other views of its {@link Views}, in order. */
    public static List<View> passives(View active) {
        List<View> out = new ArrayList<>();
        for (View v : active.views()) {
            if (v != active) {
                out.add(v);
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** The slice of passive view {@code passive}. @throws IllegalArgumentException for the active view */
    public Slice slice(View passive) {
        for (Slice s : slices) {
            if (s.passive() == passive) {
                return s;
            }
        }
        throw new IllegalArgumentException(passive + " is the active view of this tile, not a passive one");
    }
}
