/**
 * Reporters for simulator results: an aligned text or Markdown table
 * ({@link dev.khameleon.bench.sim.report.TableReporter}), CSV
 * ({@link dev.khameleon.bench.sim.report.CsvReporter}), SVG small-multiple charts
 * ({@link dev.khameleon.bench.sim.report.SvgChart}) and the latency split by the pointer's phase
 * ({@link dev.khameleon.bench.sim.report.PhaseReporter}). All output is deterministic text.
 */
package dev.khameleon.bench.sim.report;
