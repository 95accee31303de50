package dev.khameleon.simulator;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The baselines' client cache: whole responses, least recently used evicted first, bounded in
 * bytes. A response larger than the whole cache is not stored. Single-threaded.
 */
final class LruCache {
    private final long capacityBytes;
    private final LinkedHashMap<Integer, Long> entries = new LinkedHashMap<>(64, 0.75f, true);
    private long usedBytes;

    LruCache(long capacityBytes) {
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("cache capacity must be >= 0 bytes, was " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
    }

    /** Whether {@code id} is cached; a hit makes it most recently used. */
    boolean touch(int id) {
        return entries.get(id) != null;
    }

    /** Whether {@code id} is cached, without making it most recently used. */
    boolean contains(int id) {
        return entries.containsKey(id);
    }

    /** Stores a response, evicting the least recently used ones as needed. */
    void put(int id, long bytes) {
        if (bytes > capacityBytes) {
            return;
        }
        Long old = entries.remove(id);
        if (old != null) {
            usedBytes -= old;
        }
        Iterator<Map.Entry<Integer, Long>> it = entries.entrySet().iterator();
        while (usedBytes + bytes > capacityBytes && it.hasNext()) {
            usedBytes -= it.next().getValue();
            it.remove();
        }
        entries.put(id, bytes);
        usedBytes += bytes;
    }

    long usedBytes() {
        return usedBytes;
    }
}
