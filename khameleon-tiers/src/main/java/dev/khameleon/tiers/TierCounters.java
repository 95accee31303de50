package dev.khameleon.tiers;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The live counters of one stack, which its tiers bump and {@link TieredBlockSource#stats()} snapshots
 * as a {@link TierStats} (each field is documented there), and the writes to shared tiers still on their
 * way. Thread-safe.
 */
final class TierCounters {
    final LongAdder memoryHits = new LongAdder();
    final LongAdder fileHits = new LongAdder();
    final LongAdder redisHits = new LongAdder();
    final LongAdder objectStoreHits = new LongAdder();
    final LongAdder originComputations = new LongAdder();
    final LongAdder uncoordinatedComputations = new LongAdder();
    final LongAdder waitedForOtherNode = new LongAdder();
    /** Lock attempts that found another node holding the key's lock (each starts or continues a wait). */
    final LongAdder lockBusy = new LongAdder();
    final LongAdder waitTimeouts = new LongAdder();
    final LongAdder corruptValues = new LongAdder();
    final LongAdder redisFailures = new LongAdder();
    final LongAdder redisValuesLost = new LongAdder();
    final LongAdder objectStoreFailures = new LongAdder();
    private final AtomicInteger writesInFlight = new AtomicInteger();

    /**
     * Issues a write to a shared tier, counted in {@link TierStats#writesInFlight} until it ends, so
     * counters read once the count is zero see every value this node stored. A command that throws
     * yields a failed future; the caller decides whether a failure matters.
     */
    <T> CompletableFuture<T> write(Supplier<CompletableFuture<T>> command) {
        writesInFlight.incrementAndGet();
        CompletableFuture<T> f;
        try {
            f = command.get();
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        return f.whenComplete((x, e) -> writesInFlight.decrementAndGet());
    }

    /** A {@link #write} nobody waits for; a failure goes to {@code onFailure} once the write is no longer counted. */
    <T> void write(Supplier<CompletableFuture<T>> command, Consumer<Throwable> onFailure) {
        write(command).whenComplete((x, e) -> {
            if (e != null) {
                onFailure.accept(e);
            }
        });
    }

    /** The counters now, with the memory tier's size and its loads in flight, which it counts itself. */
    TierStats snapshot(long memoryBytes, int loadsInFlight) {
        return new TierStats(memoryHits.sum(), fileHits.sum(), redisHits.sum(), objectStoreHits.sum(),
                originComputations.sum(), uncoordinatedComputations.sum(), waitedForOtherNode.sum(), waitTimeouts.sum(),
                corruptValues.sum(), redisFailures.sum(), redisValuesLost.sum(), objectStoreFailures.sum(), memoryBytes,
                loadsInFlight, writesInFlight.get());
    }
}
