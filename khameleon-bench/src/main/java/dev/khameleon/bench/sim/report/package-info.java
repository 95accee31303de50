/**
 * Reporters for simulator results: an aligned text or Markdown table
 * ({@link dev.khameleon.bench.sim.report.TableReporter}), CSV
 * ({@link dev.khameleon.bench.sim.report.CsvReporter}) and SVG small-multiple charts
 * ({@link dev.khameleon.bench.sim.report.SvgChart}). All output is deterministic text.
 */
package dev.khameleon.bench.sim.report;
