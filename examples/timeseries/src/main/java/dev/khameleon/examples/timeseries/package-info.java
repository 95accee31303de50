/**
 * The time-series example, the smallest complete Khameleon app: hovering a window of a cellular
 * link's throughput chart shows that window in detail, its series pushed progressively into the
 * browser's cache before the pointer gets there.
 *
 * <p>{@link dev.khameleon.examples.timeseries.TimeseriesApp} starts everything; the package-private
 * classes are the application's half of the SPI: the trace reader, the progressive encoder and
 * decoder, and the measured utility curve.
 */
package dev.khameleon.examples.timeseries;
