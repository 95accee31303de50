package dev.khameleon.loadtest.proxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** What the benchmarks need to run child processes on 127.0.0.1 and to read {@code /proc} about them. */
public final class LocalProcess {
    private LocalProcess() {
    }

    /** A port free on the loopback address a moment ago. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Whether something accepts connections on {@code port} of the loopback address. */
    public static boolean listens(int port) {
        try {
            new Socket(InetAddress.getLoopbackAddress(), port).close();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** User and system CPU seconds of process {@code pid} from {@code /proc}, or 0 if it cannot say. */
    public static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // After the command name in parentheses: utime and stime are the 12th and 13th fields, in
            // USER_HZ ticks (100 a second on Linux).
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * Stops {@code p}: SIGTERM, then SIGKILL after 10 s. Interrupted, it kills {@code p} at once and
     * keeps the thread's interrupt status, so a close in a {@code finally} never leaves a process behind.
     */
    public static void stop(Process p) {
        p.destroy();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Deletes {@code dir} and everything in it. */
    public static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** The text of {@code file}, or "" if it cannot be read. */
    public static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "";
        }
    }
}
