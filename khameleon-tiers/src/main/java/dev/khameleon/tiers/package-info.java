/**
 * Shared block tiers for a fleet of server nodes: {@link dev.khameleon.tiers.TieredBlockSource} stacks a
 * per-node memory cache, an optional local file store, an optional shared Redis tier and an optional
 * S3-compatible object store in front of the
 * origin {@link dev.khameleon.core.spi.BlockSource}, computes each response once across the fleet and
 * bounds the origin's concurrency across nodes. Every tier is optional; a tier that fails is skipped.
 *
 * <p>Inside, every tier is a package-private {@code Tier} that answers a lookup or passes it down a
 * {@code TierChain}, which {@code TierStack} assembles in lookup order: {@code MemoryTier} (its loads
 * single-flight per key, {@code SingleFlight}), {@code FileTier}, {@code RedisTier} (values in
 * {@code RedisValues}, the fleet's compute lock in {@code ComputeLock}, both on one
 * {@code RedisConnection}), {@code ObjectStoreTier} and {@code OriginTier} (the fleet's bound on
 * computations in {@code OriginPermits}). {@code TierCounters} feeds {@link dev.khameleon.tiers.TierStats}.
 */
package dev.khameleon.tiers;
