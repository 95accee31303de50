/**
 * The trace-driven simulator: replays real pointer traces through the library's own scheduler,
 * ring-buffer cache, cache manager and predictors on a virtual clock, next to the paper's
 * baselines, and reports the paper's metrics.
 *
 * <p>Shape (after Caffeine's simulator): trace readers per format ({@code trace}), network
 * models ({@code net}), one {@link dev.khameleon.simulator.SimSystem} interface with a
 * {@link dev.khameleon.simulator.SystemRegistry}, one reference configuration
 * ({@link dev.khameleon.simulator.SimConfig#builder()}, every default commented), and
 * reporters ({@code report}). {@link dev.khameleon.simulator.Simulator#run} is one run;
 * {@link dev.khameleon.simulator.Experiments} holds the paper's figure grids. A trace becomes
 * requests per {@link dev.khameleon.simulator.RequestMode} (every 20 ms sample, as in the paper's
 * logs, or every cell entry); {@link dev.khameleon.simulator.TraceKind} tells 60 Hz recordings
 * from coalesced ones by their measured sample interval.
 */
package dev.khameleon.simulator;
