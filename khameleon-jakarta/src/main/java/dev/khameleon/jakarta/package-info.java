/**
 * Serves a Khameleon server's applications from a Jakarta WebSocket (JSR 356) container: register
 * the endpoint configuration from {@link dev.khameleon.jakarta.KhameleonEndpoints} with the
 * container's {@code ServerContainer}, next to the web application's own servlets and endpoints.
 * Operation and limits are in {@code docs/server.md}, "Jakarta WebSocket (JSR 356)".
 */
package dev.khameleon.jakarta;
