package dev.khameleon.examples.crossfilter;

import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The content keys of the live crossfilter: a bounded two-way table between {@link TileKey}s and
 * the {@code long} keys the Khameleon server binds request ids to. The key of a view's tile
 * without brushes on the other views is the view's index (the request's default meaning);
 * every other tile key gets the next number from the number of views upwards, never reused.
 *
 * <p>At most {@code maxKeys} filtered keys are kept; registering one more forgets the least
 * recently used, so a session still bound to a forgotten key gets failed fetches for it until its
 * next scope. Thread-safe.
 */
final class ContentKeys {
    private final Views views;
    private final int maxKeys;
    private final Map<TileKey, Long> byTile = new LinkedHashMap<>(16, 0.75f, true);
    private final Map<Long, TileKey> byKey = new HashMap<>();
    private long next;

    /** The keys of tiles over {@code views}. @throws IllegalArgumentException if {@code maxKeys < 1} */
    ContentKeys(Views views, int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be >= 1, was " + maxKeys);
        }
        this.views = views;
        this.next = views.size();
        this.maxKeys = maxKeys;
    }

    /** The content key of {@code key}, registering it if it is new (and forgetting the least recently used). */
    synchronized long register(TileKey key) {
        if (isDefault(key)) {
            return key.active().index();
        }
        Long known = byTile.get(key);
        if (known != null) {
            return known;
        }
        long k = next++;
        byTile.put(key, k);
        byKey.put(k, key);
        Iterator<Map.Entry<TileKey, Long>> oldest = byTile.entrySet().iterator();
        while (byTile.size() > maxKeys) {
            byKey.remove(oldest.next().getValue());
            oldest.remove();
        }
        return k;
    }

    /** The tile key registered as {@code contentKey}, or null if it is unknown or forgotten. */
    synchronized TileKey lookup(long contentKey) {
        if (contentKey >= 0 && contentKey < views.size()) {
            return new TileKey(views.get((int) contentKey), Filters.none(views));
        }
        TileKey key = byKey.get(contentKey);
        if (key != null) {
            byTile.get(key); // a fetch is a use: keep the key of a tile being served
        }
        return key;
    }

    /** How many filtered keys are held. */
    synchronized int size() {
        return byTile.size();
    }

    /** The views whose tiles these keys name. */
    Views views() {
        return views;
    }

    private static boolean isDefault(TileKey key) {
        return key.filters().isEmpty();
    }
}
