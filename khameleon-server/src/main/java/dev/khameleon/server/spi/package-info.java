/**
 * Extension points of the server: how a session's scheduler is made
 * ({@link dev.khameleon.server.spi.SchedulerFactory}, given a
 * {@link dev.khameleon.server.spi.SchedulerContext}), how a hello's token is checked
 * ({@link dev.khameleon.server.spi.Authenticator}), and how a connection that another WebSocket
 * stack accepted is written to ({@link dev.khameleon.server.spi.WebSocketPeer}).
 */
package dev.khameleon.server.spi;
