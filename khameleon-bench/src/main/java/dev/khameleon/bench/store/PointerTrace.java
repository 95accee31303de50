package dev.khameleon.bench.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * One pointer session of the Balabit Mouse Dynamics Challenge data ({@code pointer/balabit} in the
 * shared data): monotone client timestamps (ms) and screen positions, sentinel rows removed.
 * Immutable.
 */
final class PointerTrace {
    private final double[] millis;
    private final float[] x;
    private final float[] y;

    private PointerTrace(double[] millis, float[] x, float[] y) {
        this.millis = millis;
        this.x = x;
        this.y = y;
    }

    /** Every {@code session_*.gz} under {@code root}, in path order, each cut to {@code maxEvents}. */
    static List<PointerTrace> loadBalabit(Path root, int maxEvents) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.walk(root)) {
            files = s.filter(p -> p.getFileName().toString().startsWith("session_")).sorted().toList();
        }
        List<PointerTrace> traces = new ArrayList<>();
        for (Path f : files) {
            PointerTrace t = read(f, maxEvents);
            if (t.millis.length > 100) {
                traces.add(t);
            }
        }
        return traces;
    }

    private static PointerTrace read(Path file, int maxEvents) throws IOException {
        double[] ms = new double[1024];
        float[] xs = new float[1024];
        float[] ys = new float[1024];
        int n = 0;
        double last = 0;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                new GZIPInputStream(Files.newInputStream(file)), StandardCharsets.US_ASCII))) {
            String line = r.readLine();
            while ((line = r.readLine()) != null && n < maxEvents) {
                String[] f = line.split(",");
                if (f.length < 6) {
                    continue;
                }
                int px = Integer.parseInt(f[4].trim());
                int py = Integer.parseInt(f[5].trim());
                if (px == 65535 || py == 65535) {
                    continue;
                }
                // Rare backwards client timestamps: keep time monotone.
                last = Math.max(last, Double.parseDouble(f[1]) * 1000.0);
                if (n == ms.length) {
                    ms = Arrays.copyOf(ms, n * 2);
                    xs = Arrays.copyOf(xs, n * 2);
                    ys = Arrays.copyOf(ys, n * 2);
                }
                ms[n] = last;
                xs[n] = px;
                ys[n] = py;
                n++;
            }
        }
        return new PointerTrace(Arrays.copyOf(ms, n), Arrays.copyOf(xs, n), Arrays.copyOf(ys, n));
    }

    double durationMillis() {
        return millis[millis.length - 1] - millis[0];
    }

    double startMillis() {
        return millis[0];
    }

    /** The index of the last event at or before {@code t} (0 if none). */
    int eventAt(double t) {
        int i = Arrays.binarySearch(millis, t);
        if (i < 0) {
            i = -i - 2;
        }
        while (i + 1 < millis.length && millis[i + 1] == t) {
            i++;
        }
        return Math.max(0, Math.min(i, millis.length - 1));
    }

    float x(int event) {
        return x[event];
    }

    float y(int event) {
        return y[event];
    }
}
