package dev.khameleon.examples.crossfilter;

import java.util.Objects;

/**
 * What a {@link Tile} depends on: the active view and the brushes of all other views (the
 * active view's own brush is not part of the key: the tile answers every brush on it).
 *
 * @param active  the view being brushed
 * @param filters the other views' brushes; the active view's brush is always absent
 */
public record TileKey(View active, Filters filters) {
    /**
     * Drops the active view's brush from {@code filters}, so keys that answer the same brushes are equal.
     *
     * @throws IllegalArgumentException if {@code active} is not one of the filters' views
     */
    public TileKey {
        Objects.requireNonNull(active, "active");
        filters = filters.without(active);
    }
}
