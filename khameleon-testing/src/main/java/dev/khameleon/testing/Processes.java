package dev.khameleon.testing;

import java.util.concurrent.TimeUnit;

/** What the kit's process rigs share. */
final class Processes {
    private Processes() {
    }

    /**
     * Stops {@code process}: SIGTERM, then SIGKILL if it has not exited within {@code seconds}, waiting
     * up to {@code seconds} more. An interrupt kills it at once and stays set.
     */
    static void stop(Process process, long seconds) {
        process.destroy();
        try {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(seconds, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
