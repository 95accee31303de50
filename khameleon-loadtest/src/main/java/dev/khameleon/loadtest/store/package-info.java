/**
 * The file-store benchmark: imports a generated corpus of several GB into a
 * {@link dev.khameleon.store.FileBlockStore}, records per-session schedules from real pointer
 * traces through a greedy scheduler, and replays them concurrently against each read strategy.
 * Entry point: {@link dev.khameleon.loadtest.store.StoreBench}; results and commands in
 * {@code docs/benchmarks.md} (section "File store").
 */
package dev.khameleon.loadtest.store;
