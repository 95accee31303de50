package dev.khameleon.simulator.trace;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns command-line trace specifications into traces. A specification is a file path,
 * optionally followed by {@code #k} to pick segment {@code k} of a Balabit session
 * ({@code user7/session_0041905381.gz#2}); without it a Balabit file gives its first
 * {@code segmentsPerFile} segments. Stateless and thread-safe.
 */
public final class TraceLoader {
    /** The supported pointer-trace formats. */
    public enum Format {
        /** Balabit Mouse Dynamics sessions (gzip'd CSV). */
        BALABIT,
        /** Khameleon gallery demo traces (JSON). */
        GALLERY;

        /** Parses {@code balabit} or {@code gallery}, case-insensitively. */
        public static Format parse(String s) {
            try {
                return valueOf(s.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown trace format " + s + "; expected balabit or gallery", e);
            }
        }
    }

    private TraceLoader() {
    }

    /**
     * Loads the traces named by {@code specs}.
     *
     * @throws IllegalArgumentException if a file is missing, malformed, or has fewer segments
     *     than asked for
     */
    public static List<PointerTrace> load(List<String> specs, Format format, int segmentsPerFile,
                                          double segmentMillis, double idleGapMillis) {
        List<PointerTrace> out = new ArrayList<>();
        for (String spec : specs) {
            String pathPart = spec;
            int segment = -1;
            int hash = spec.lastIndexOf('#');
            if (hash > 0) {
                pathPart = spec.substring(0, hash);
                try {
                    segment = Integer.parseInt(spec.substring(hash + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("bad segment index in trace " + spec, e);
                }
            }
            Path path = Path.of(pathPart);
            if (!Files.isRegularFile(path)) {
                throw new IllegalArgumentException("trace file not found: " + path.toAbsolutePath());
            }
            if (format == Format.GALLERY) {
                out.add(GalleryReader.read(path));
                continue;
            }
            List<PointerTrace> segments = BalabitReader.segments(BalabitReader.read(path), segmentMillis, idleGapMillis);
            if (segment >= 0) {
                if (segment >= segments.size()) {
                    throw new IllegalArgumentException(path + " has " + segments.size() + " segments of "
                            + segmentMillis + " ms; no segment " + segment);
                }
                out.add(segments.get(segment));
            } else {
                out.addAll(segments.subList(0, Math.min(segmentsPerFile, segments.size())));
            }
        }
        return out;
    }
}
