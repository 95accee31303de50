/**
 * Reporters for simulator results: an aligned text or Markdown table
 * ({@link dev.khameleon.simulator.report.TableReporter}), CSV
 * ({@link dev.khameleon.simulator.report.CsvReporter}), SVG small-multiple charts
 * ({@link dev.khameleon.simulator.report.SvgChart}) and the latency split by the pointer's phase
 * ({@link dev.khameleon.simulator.report.PhaseReporter}). All output is deterministic text.
 */
package dev.khameleon.simulator.report;
