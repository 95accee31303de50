/**
 * The Khameleon server: a Netty WebSocket server that, for each connected client, decodes its
 * prediction states into distributions, schedules blocks of progressively encoded responses and
 * pushes them at the client's bandwidth. Start one with {@link dev.khameleon.server.KhameleonServer#builder()},
 * mounting one or more {@link dev.khameleon.server.Application applications}, on a port of its own
 * or inside an application's own Netty pipeline ({@link dev.khameleon.server.KhameleonServer#mount()})
 * or WebSocket stack ({@link dev.khameleon.server.KhameleonServer#attach}); observe it through
 * {@link dev.khameleon.server.ServerMetrics} and {@link dev.khameleon.server.SessionMetrics}. The wire
 * protocol is specified in {@code docs/protocol.md}; operation in {@code docs/server.md}.
 */
package dev.khameleon.server;
