package dev.khameleon.tiers;

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
 * The tests' reader of Balabit Mouse Dynamics Challenge sessions ({@code ../shared/data/pointer/balabit},
 * see its README): gzip'd CSV {@code record timestamp,client timestamp,button,state,x,y}, rows with
 * the sentinel coordinate 65535 dropped, times from the client timestamp in milliseconds.
 */
final class BalabitTraces {
    /** One pointer position at {@code timeMillis} (client timestamp, from the session's start). */
    record Sample(double timeMillis, double x, double y) {
    }

    private BalabitTraces() {
    }

    /** The shared data directory ({@code -Dkhameleon.shared.data}, default {@code ../shared/data}). */
    static Path data() {
        return Path.of(System.getProperty("khameleon.shared.data", "../shared/data")).toAbsolutePath().normalize();
    }

    /** The balabit directory; skips the calling test, naming the path, when it is absent. */
    static Path directoryOrSkip() {
        Path dir = data().resolve("pointer/balabit");
        Assumptions.assumeTrue(Files.isDirectory(dir), "balabit pointer traces not found at " + dir);
        return dir;
    }

    /** The {@code index}-th session file (in name order) of {@code user}, e.g. {@code user12}. */
    static Path session(Path balabit, String user, int index) throws IOException {
        try (Stream<Path> s = Files.list(balabit.resolve(user))) {
            List<Path> sessions = s.filter(p -> p.getFileName().toString().startsWith("session_")).sorted().toList();
            if (index >= sessions.size()) {
                throw new IllegalArgumentException(user + " has " + sessions.size() + " sessions, no session " + index);
            }
            return sessions.get(index);
        }
    }

    /** Every row of a session with valid coordinates, in file order (a rare timestamp may go backwards). */
    static List<Sample> read(Path session) {
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
     * The first {@code durationMillis} of interaction in {@code samples}, times from 0 and never
     * going backwards: every pause longer than {@code maxGapMillis} is shortened to it (the pointer
     * rests that long), so a replay of the result spends its time on a moving pointer.
     */
    static List<Sample> active(List<Sample> samples, double maxGapMillis, double durationMillis) {
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
