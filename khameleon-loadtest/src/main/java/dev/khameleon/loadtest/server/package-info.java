/**
 * Loopback load tools for the Khameleon server. {@link dev.khameleon.loadtest.server.ServerLoad}
 * measures push throughput of one and many concurrent sessions, the server threads' CPU use, and
 * the delay from a new distribution's arrival to the first block that reflects it.
 * {@link dev.khameleon.loadtest.server.Soak} measures what hostile clients (ping floods, missing
 * hellos, stalled readers, oversized and maximal caches) cost healthy sessions on a server with
 * its default limits. {@link dev.khameleon.loadtest.server.ProxyOverhead} runs one workload directly
 * and through a local HAProxy with the documented configuration ({@code dev.khameleon.loadtest.proxy.HaproxyConfig}) and compares
 * throughput and delays. They share the synthetic application ({@code LoadApp}) and the JDK WebSocket
 * load client ({@code LoadClient}); the hostile clients use a raw-socket WebSocket
 * ({@code RawWebSocket}) that binds its own loopback address and can stop reading.
 */
package dev.khameleon.loadtest.server;
