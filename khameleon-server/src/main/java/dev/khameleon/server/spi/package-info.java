/**
 * Extension points of the server: how a session's scheduler is made
 * ({@link dev.khameleon.server.spi.SchedulerFactory}, given a
 * {@link dev.khameleon.server.spi.SchedulerContext}) and how a hello's token is checked
 * ({@link dev.khameleon.server.spi.Authenticator}).
 */
package dev.khameleon.server.spi;
