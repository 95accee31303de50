package dev.khameleon.testing;

import dev.khameleon.core.PointerEvent;

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
 * The tests' reader of Balabit Mouse Dynamics Challenge sessions in the shared data directory
 * ({@code pointer/balabit} under {@link SharedData#root()}, see its README): gzip'd CSV
 * {@code record timestamp,client timestamp,button,state,x,y}, rows with the sentinel coordinate
 * 65535 dropped, times from the client timestamp in milliseconds.
 */
public final class BalabitTraces {
    /** The idle gap, in milliseconds, at which {@link #segments} splits a session. */
    public static final long SEGMENT_GAP_MILLIS = 1000;

    /** One pointer position at {@code timeMillis} (client timestamp, from the session's start). */
    public record Sample(double timeMillis, double x, double y) {
    }

    private BalabitTraces() {
    }

    /** The balabit directory; skips the calling test, naming the absolute path, when it is absent. */
    public static Path directoryOrSkip() {
        return SharedData.requireDirectory("pointer/balabit", "balabit pointer traces");
    }

    /** Every session file under {@code dir} (all users), in path order. */
    public static List<Path> sessions(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("session_")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code index}-th session file (in name order) of {@code user}, e.g. {@code user12}. */
    public static Path session(Path balabit, String user, int index) throws IOException {
        try (Stream<Path> s = Files.list(balabit.resolve(user))) {
            List<Path> sessions = s.filter(p -> p.getFileName().toString().startsWith("session_")).sorted().toList();
            if (index >= sessions.size()) {
                throw new IllegalArgumentException(user + " has " + sessions.size() + " sessions, no session " + index);
            }
            return sessions.get(index);
        }
    }

    /** Every row of a session with valid coordinates, in file order (a rare timestamp may go backwards). */
    public static List<Sample> read(Path session) {
        List<Sample> out = new ArrayList<>();
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
                out.add(new Sample(Double.parseDouble(f[1]) * 1000, x, y));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Balabit session " + session, e);
        }
        return out;
    }

    /**
     * The session's segments as pointer events: times rounded to whole milliseconds, a backwards
     * timestamp clamped to the previous one, a new segment after every gap longer than
     * {@link #SEGMENT_GAP_MILLIS}.
     */
    public static List<List<PointerEvent>> segments(Path session) {
        List<List<PointerEvent>> segments = new ArrayList<>();
        List<PointerEvent> current = new ArrayList<>();
        long last = Long.MIN_VALUE;
        for (Sample s : read(session)) {
            long t = Math.round(s.timeMillis());
            if (last != Long.MIN_VALUE && t - last > SEGMENT_GAP_MILLIS && !current.isEmpty()) {
                segments.add(current);
                current = new ArrayList<>();
            }
            t = Math.max(t, last == Long.MIN_VALUE ? t : last);
            current.add(new PointerEvent(s.x(), s.y(), t));
            last = t;
        }
        if (!current.isEmpty()) {
            segments.add(current);
        }
        return segments;
    }

    /**
     * The first {@code durationMillis} of interaction in {@code samples}, times from 0 and never
     * going backwards: every pause longer than {@code maxGapMillis} is shortened to it (the pointer
     * rests that long), so a replay of the result spends its time on a moving pointer.
     */
    public static List<Sample> active(List<Sample> samples, double maxGapMillis, double durationMillis) {
        List<Sample> out = new ArrayList<>();
        double t = 0;
        double last = Double.NaN;
        for (Sample s : samples) {
            if (!Double.isNaN(last)) {
                t += Math.min(maxGapMillis, Math.max(0, s.timeMillis() - last));
            }
            last = Math.max(s.timeMillis(), Double.isNaN(last) ? s.timeMillis() : last);
            if (t > durationMillis) {
                break;
            }
            out.add(new Sample(t, s.x(), s.y()));
        }
        return out;
    }
}
