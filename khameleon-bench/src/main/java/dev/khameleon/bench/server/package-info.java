/**
 * A loopback load tool for the Khameleon server ({@link dev.khameleon.bench.server.ServerLoad}):
 * push throughput of one and many concurrent sessions, the server threads' CPU use, and the delay
 * from a new distribution's arrival to the first block that reflects it.
 */
package dev.khameleon.bench.server;
