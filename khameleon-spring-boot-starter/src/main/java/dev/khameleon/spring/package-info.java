/**
 * Spring Boot auto-configuration for Khameleon: define one or more
 * {@link dev.khameleon.server.Application} beans and {@link dev.khameleon.spring.KhameleonAutoConfiguration}
 * serves them with a {@link dev.khameleon.server.KhameleonServer} configured from the
 * {@code khameleon.*} properties ({@link dev.khameleon.spring.KhameleonProperties}): on the port of
 * Boot's own servlet web server, through its Jakarta WebSocket container, or on a port of its own
 * ({@code khameleon.mode}). Package-private classes mount it on the web server (with a filter that
 * tells the endpoints each client's address and a {@code /healthz} servlet), or start it once the
 * context is refreshed, and close it gracefully on shutdown.
 */
package dev.khameleon.spring;
