/**
 * Network models for the simulator: a {@link dev.khameleon.simulator.net.Link} is the
 * bottleneck downlink (fixed rate, or exactly the delivery opportunities of a
 * {@link dev.khameleon.simulator.net.MahimahiTrace}); one-way latency is added on top by
 * the simulated systems.
 */
package dev.khameleon.simulator.net;
