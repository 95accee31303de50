/**
 * Local helper processes shared by the benchmarks that put Debian's HAProxy in front of servers on
 * 127.0.0.1: the documented HAProxy configuration rendered for loopback ports, an HAProxy process, and
 * what {@code /proc} says about processes and the machine.
 */
package dev.khameleon.loadtest.proxy;
