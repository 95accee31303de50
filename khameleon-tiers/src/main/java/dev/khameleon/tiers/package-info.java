/**
 * Shared block tiers for a fleet of server nodes: {@link dev.khameleon.tiers.TieredBlockSource} stacks a
 * per-node memory cache, an optional local file store, an optional shared Redis tier and an optional
 * S3-compatible object store in front of the
 * origin {@link dev.khameleon.core.spi.BlockSource}, computes each response once across the fleet and
 * bounds the origin's concurrency across nodes. Every tier is optional; a tier that fails is skipped.
 */
package dev.khameleon.tiers;
