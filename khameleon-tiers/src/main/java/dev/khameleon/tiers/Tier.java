package dev.khameleon.tiers;

import dev.khameleon.core.ScheduleChunk;

import java.util.concurrent.CompletableFuture;

/**
 * One level of a {@link TieredBlockSource}'s stack, as an OkHttp interceptor is one step of a call: it
 * answers a lookup from what it holds, or passes the lookup down its {@link Chain} and may keep what
 * comes back. The stack is a {@link TierChain} walked in order, memory first and the origin last, so a
 * new tier is one class and one entry where {@link TierStack} assembles the chain.
 *
 * <p>Implementations are thread-safe and never block: {@link #load} returns at once and its future
 * completes on whichever thread the tier's store or the tiers below answer on. A tier contains the
 * failures of its own store (it passes the lookup down instead), so the future fails only when the
 * tiers below fail it: the origin failed, no origin permit came free, or the stack was closed.
 */
interface Tier {

    /**
     * The response to {@code chain.lookup()}: the one this tier holds, or the one a lookup passed to
     * {@link Chain#proceed} yields; never null.
     */
    CompletableFuture<StoredResponse> load(Chain chain);

    /** Takes a hint of what the schedule will ask for soon; returns at once. The default ignores it. */
    default void prefetch(ScheduleChunk chunk) {
    }

    /**
     * Releases what this tier owns when the stack closes; a load still running may then fail. The
     * default owns nothing.
     */
    default void close() {
    }

    /** The tiers below one tier: the lookup that tier was given, and the way to pass a lookup on. */
    interface Chain {

        /** The lookup the tier is to answer. */
        Lookup lookup();

        /** Hands {@code lookup} to the next tier down; the origin, the last tier, never calls this. */
        CompletableFuture<StoredResponse> proceed(Lookup lookup);
    }

    /**
     * What a fetch asks the tiers for: the whole response stored under {@code contentKey}, which must
     * have {@code count} blocks, loaded for {@code requestId}. {@code lockHeld}: this node holds the
     * key's shared lock, so no other node computes it meanwhile.
     */
    record Lookup(int requestId, long contentKey, int count, boolean lockHeld) {

        /** The same lookup, made while holding the key's shared lock. */
        Lookup withLock() {
            return new Lookup(requestId, contentKey, count, true);
        }
    }
}
