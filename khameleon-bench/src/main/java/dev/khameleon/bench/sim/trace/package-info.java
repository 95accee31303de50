/**
 * Pointer traces for the simulator: the {@link dev.khameleon.bench.sim.trace.PointerTrace}
 * value and one reader per recorded format ({@link dev.khameleon.bench.sim.trace.BalabitReader},
 * {@link dev.khameleon.bench.sim.trace.GalleryReader}), each robust to its data set's quirks.
 */
package dev.khameleon.bench.sim.trace;
