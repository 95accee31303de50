package dev.khameleon.spring;

import dev.khameleon.server.KhameleonServer;
import org.springframework.context.SmartLifecycle;

import java.util.function.BooleanSupplier;

/**
 * Runs the auto-configured server from the context's refresh to its stop. At start, once every
 * singleton exists, it binds the server's own port unless the server is already mounted on Boot's
 * web server; at stop it closes the server (every session gets {@code shutdown}). In the default
 * phase, so it starts after and stops before Boot's own web server: the mounted server's sessions
 * close while the web server still carries them. A closed server cannot be restarted: a context
 * stopped and started again fails to start it with {@link IllegalStateException}.
 */
final class ServerLifecycle implements SmartLifecycle {
    private final KhameleonServer server;
    private final BooleanSupplier mounted;
    private volatile boolean running;

    /** {@code mounted} mounts the server on Boot's web server if possible and tells whether it is. */
    ServerLifecycle(KhameleonServer server, BooleanSupplier mounted) {
        this.server = server;
        this.mounted = mounted;
    }

    @Override
    public void start() {
        if (!mounted.getAsBoolean()) {
            server.start();
        }
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
