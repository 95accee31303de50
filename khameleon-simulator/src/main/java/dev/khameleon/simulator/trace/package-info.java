/**
 * Pointer traces for the simulator: the {@link dev.khameleon.simulator.trace.PointerTrace}
 * value and one reader per recorded format ({@link dev.khameleon.simulator.trace.BalabitReader},
 * {@link dev.khameleon.simulator.trace.GalleryReader}), each robust to its data set's quirks.
 */
package dev.khameleon.simulator.trace;
