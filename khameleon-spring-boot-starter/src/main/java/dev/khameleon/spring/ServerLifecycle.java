package dev.khameleon.spring;

import dev.khameleon.server.KhameleonServer;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the auto-configured server when the context has been refreshed (every singleton exists)
 * and closes it when the context stops. In the default phase, so it starts after and stops before
 * Boot's own web server. A closed server cannot be restarted: a context stopped and started again
 * fails to start it with {@link IllegalStateException}.
 */
final class ServerLifecycle implements SmartLifecycle {
    private final KhameleonServer server;
    private volatile boolean running;

    ServerLifecycle(KhameleonServer server) {
        this.server = server;
    }

    @Override
    public void start() {
        server.start();
        running = true;
    }

    /** Closes every session with {@code shutdown} and waits up to the server's shutdown timeout. */
    @Override
    public void stop() {
        try {
            server.close();
        } finally {
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
