package dev.khameleon.spring;

/**
 * Whether the auto-configured server serves on Boot's web server port. Free of servlet types, so
 * that the rest of the auto-configuration loads in applications without the Servlet API.
 */
interface WebServerMount {
    /** True once the server is mounted on Boot's web server; then it must not bind a port of its own. */
    boolean isMounted();
}
