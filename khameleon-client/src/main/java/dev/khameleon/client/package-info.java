/**
 * The Java client of Khameleon. {@link dev.khameleon.client.RingBufferCache} is the FIFO block
 * cache the server simulates; {@link dev.khameleon.client.CacheManager} answers the
 * application's requests from it with {@link dev.khameleon.client.Upcall upcalls} that improve
 * as blocks arrive, and records {@link dev.khameleon.client.ClientMetrics};
 * {@link dev.khameleon.client.KalmanPredictor} is the client half of the pointer predictor.
 * The cache, the manager and the predictor take injected clocks and executors, so the
 * simulator drives the very same classes on virtual time.
 */
package dev.khameleon.client;
