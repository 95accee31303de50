/**
 * Sizing a fleet of server nodes: a loopback rig and a model calibrated on it.
 *
 * <p>{@link dev.khameleon.loadtest.fleet.FleetRig} runs HAProxy, a shared Redis and {@code N} server
 * nodes (child JVMs, {@link dev.khameleon.loadtest.fleet.FleetNode}) with a {@code khameleon-tiers}
 * stack over a computing origin, and Java clients replaying Balabit pointer traces through the
 * proxy; it measures each node's CPU, egress, block reads per tier and origin computations.
 * {@link dev.khameleon.loadtest.fleet.FleetModel} turns measured runs into per-session coefficients
 * and a power law for the origin, predicts other fleet sizes and extrapolates to many sessions.
 * {@link dev.khameleon.loadtest.fleet.FleetCommand} runs both and prints the tables of
 * {@code docs/scale-out.md}. Every address is on 127.0.0.1.
 */
package dev.khameleon.loadtest.fleet;
