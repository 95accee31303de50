package dev.khameleon.client;

import dev.khameleon.core.PointerEvent;
import org.junit.jupiter.api.Assumptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Reads the Balabit Mouse Dynamics Challenge sessions from the shared data directory
 * ({@code ../shared/data/pointer/balabit}, see its README): the client timestamp in
 * milliseconds and the position, sentinel rows (65535) dropped, a backwards timestamp clamped
 * to the previous one, sessions split into segments at idle gaps.
 */
final class BalabitTraces {
    static final long SEGMENT_GAP_MILLIS = 1000;

    private BalabitTraces() {
    }

    /** The balabit directory; skips the calling test (naming the path) when it is absent. */
    static Path directoryOrSkip() {
        String root = System.getProperty("khameleon.shared.data", "../shared/data");
        Path dir = Path.of(root, "pointer", "balabit").toAbsolutePath().normalize();
        Assumptions.assumeTrue(Files.isDirectory(dir), "balabit pointer traces not found at " + dir);
        return dir;
    }

    /** Every session file under {@code dir}, in path order. */
    static List<Path> sessions(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("session_")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The session's segments: runs of events with no gap longer than {@link #SEGMENT_GAP_MILLIS}. */
    static List<List<PointerEvent>> segments(Path session) {
        List<List<PointerEvent>> segments = new ArrayList<>();
        List<PointerEvent> current = new ArrayList<>();
        long last = Long.MIN_VALUE;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(session)), StandardCharsets.UTF_8))) {
            String line = in.readLine(); // header
            while ((line = in.readLine()) != null) {
                String[] f = line.split(",");
                if (f.length < 6) {
                    continue;
                }
                double x = Double.parseDouble(f[4]);
                double y = Double.parseDouble(f[5]);
                if (x >= 65535 || y >= 65535) {
                    continue;
                }
                long t = Math.round(Double.parseDouble(f[1]) * 1000);
                if (last != Long.MIN_VALUE && t - last > SEGMENT_GAP_MILLIS && !current.isEmpty()) {
                    segments.add(current);
                    current = new ArrayList<>();
                }
                t = Math.max(t, last == Long.MIN_VALUE ? t : last);
                current.add(new PointerEvent(x, y, t));
                last = t;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (!current.isEmpty()) {
            segments.add(current);
        }
        return segments;
    }
}
