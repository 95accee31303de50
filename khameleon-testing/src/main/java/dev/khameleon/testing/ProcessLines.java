package dev.khameleon.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The lines a child process prints on its standard output, read on a daemon thread as they come,
 * for a rig that talks to a child JVM line by line ({@code port N}, {@code stats …}). Thread-safe.
 */
public final class ProcessLines {
    private final Process process;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    /**
     * Starts reading {@code process}'s standard output; {@code log} is the file its standard error
     * goes to, quoted when an expected line does not come.
     */
    public ProcessLines(Process process, Path log, String threadName) {
        this.process = process;
        this.log = log;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.US_ASCII))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // The process is gone: whoever waits for a line times out and says so.
            }
        }, threadName);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * The next line that starts with {@code prefix} and a space, skipping others, waiting at most
     * {@code seconds}.
     *
     * @throws IOException if none comes in time, naming the process, whether it lives, and its log
     */
    public String next(String prefix, int seconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new IOException("process " + process.pid() + " printed no '" + prefix + "' line within "
                        + seconds + " s (alive: " + process.isAlive() + "); its log:\n" + log());
            }
            if (line.startsWith(prefix + " ")) {
                return line;
            }
        }
    }

    /** What the process wrote to its log so far, empty if it cannot be read. */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }
}
