package dev.khameleon.tiers;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One load per key at a time: a caller that asks for a key already loading joins that load instead of
 * starting another. Counts the loads that have started and not ended, so a caller can wait for the
 * stack to be quiet before it reads counters that a load changes at its start and its end.
 *
 * @param <V> what a load yields
 */
final class SingleFlight<V> {
    private final ConcurrentHashMap<Long, CompletableFuture<V>> running = new ConcurrentHashMap<>();

    /**
     * The running load of {@code key}, or a new one from {@code loader}; {@code onLoaded} sees a
     * successful value before any caller does and before the key can load again.
     */
    CompletableFuture<V> load(long key, Supplier<CompletableFuture<V>> loader, Consumer<V> onLoaded) {
        CompletableFuture<V> mine = new CompletableFuture<>();
        CompletableFuture<V> other = running.putIfAbsent(key, mine);
        if (other != null) {
            return other;
        }
        CompletableFuture<V> loaded;
        try {
            loaded = loader.get();
        } catch (RuntimeException e) {
            loaded = CompletableFuture.failedFuture(e);
        }
        loaded.whenComplete((v, e) -> {
            if (v != null) {
                onLoaded.accept(v);
            }
            running.remove(key, mine);
            if (e != null) {
                mine.completeExceptionally(e);
            } else {
                mine.complete(v);
            }
        });
        return mine;
    }

    /** Loads started and not yet ended. */
    int running() {
        return running.size();
    }

    /** Fails every running load with {@code e}; their loaders are left to finish on their own. */
    void failAll(RuntimeException e) {
        running.values().forEach(f -> f.completeExceptionally(e));
    }
}
