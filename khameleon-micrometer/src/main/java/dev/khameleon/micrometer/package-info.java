/**
 * Micrometer meters for the Java client: {@link dev.khameleon.micrometer.ClientMeterBinder}
 * publishes a client's cache-hit rate, latencies, utility, over-push and prediction accuracy.
 * (The server's binder is {@code dev.khameleon.server.micrometer.KhameleonMeterBinder}, in
 * {@code khameleon-server}, with Micrometer as an optional dependency.)
 */
package dev.khameleon.micrometer;
