/**
 * The greedy block schedulers of the paper's Section 5 and their settings.
 *
 * <p>{@link dev.khameleon.core.scheduler.SchedulerConfig} collects the settings (cache size
 * {@code C}, block counts, utility, chunk size, discount, planning horizon and fade of the
 * forecast to uniform, randomness, backend-concurrency limit, and the {@link dev.khameleon.core.scheduler.Selection} rule: the paper's proportional
 * draw by default, or the deterministic largest gain); {@link dev.khameleon.core.scheduler.Schedulers#greedy} builds the fast scheduler that
 * servers and the simulator use, {@link dev.khameleon.core.scheduler.Schedulers#reference} the
 * literal {@code O(n·C)} Listing 1 it is tested and benchmarked against. Both implement
 * {@link dev.khameleon.core.spi.Scheduler}. {@link dev.khameleon.core.scheduler.BackendLoad} is
 * what a scheduler asks about the backend when a concurrency limit is set.
 */
package dev.khameleon.core.scheduler;
