package dev.khameleon.spring;

/**
 * Mounts the auto-configured server on Boot's web server port when that is possible. Free of
 * servlet types, so that the rest of the auto-configuration loads in applications without the
 * Servlet API.
 */
interface WebServerMount {
    /**
     * Mounts the server on the web server unless that was decided already; idempotent and
     * thread-safe. Called once every singleton exists, and again before the server would otherwise
     * bind a port of its own (with lazy initialization the first call may come only then).
     *
     * @return whether the server is mounted on Boot's web server; false means it needs its own port
     * @throws IllegalStateException when {@code khameleon.mode=embedded} and mounting is not possible
     */
    boolean mount();
}
