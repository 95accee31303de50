package dev.khameleon.tiers;

/**
 * A snapshot of a {@link TieredBlockSource}'s counters since it was built. Counts are per response
 * loaded (all blocks of one content key), except {@code memoryHits}, which counts block fetches.
 *
 * @param memoryHits block fetches answered from this node's memory tier
 * @param fileHits responses read from the local file store
 * @param redisHits responses read from the shared Redis tier
 * @param objectStoreHits responses read from the object store
 * @param originComputations responses this node computed from the origin
 * @param uncoordinatedComputations of those, the ones computed without holding the key's shared lock
 *     (no shared tier, the tier unusable or failing, or a wait for another node that ran out):
 *     computations another node may have made too
 * @param waitedForOtherNode responses another node was computing when this node asked, and which
 *     this node then read from Redis instead of computing
 * @param waitTimeouts waits for another node that outlasted the bounded wait, after which this node
 *     computed the response itself
 * @param corruptValues values found damaged or foreign in a tier, refused and recomputed
 * @param redisFailures Redis commands that failed or timed out (the fetch went on to the tiers below)
 * @param redisValuesLost responses this node loaded and meant to store in Redis but did not (Redis
 *     unusable, or the write failed or timed out), so another node may compute them again with the
 *     lock; with {@code uncoordinatedComputations}, the only way a fleet computes a response twice
 * @param objectStoreFailures object-store calls that failed (the fetch went on to the origin)
 * @param memoryBytes bytes the memory tier holds now
 * @param loadsInFlight responses being loaded now (counted in the counters above at their start)
 * @param writesInFlight writes to Redis or the object store issued and not yet answered; once this and
 *     {@code loadsInFlight} are zero, the shared tiers hold every value this node computed
 */
public record TierStats(long memoryHits, long fileHits, long redisHits, long objectStoreHits,
                        long originComputations, long uncoordinatedComputations,
                        long waitedForOtherNode, long waitTimeouts, long corruptValues,
                        long redisFailures, long redisValuesLost, long objectStoreFailures, long memoryBytes,
                        int loadsInFlight, int writesInFlight) {
}
