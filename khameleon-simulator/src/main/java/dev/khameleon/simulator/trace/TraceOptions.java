package dev.khameleon.simulator.trace;

import java.util.List;
import picocli.CommandLine.Option;

/**
 * The command-line options that pick pointer traces, shared by the subcommands that replay them
 * (a picocli mixin: {@code @Mixin TraceOptions traces;}). Not thread-safe; picocli fills it.
 */
public final class TraceOptions {

    @Option(names = "--trace", required = true, split = ",",
            description = "Trace file(s), comma-separated; a Balabit file may end in #k to pick segment k.")
    List<String> traces;

    @Option(names = "--trace-format", defaultValue = "balabit", description = "balabit or gallery (default ${DEFAULT-VALUE}).")
    String traceFormat;

    @Option(names = "--segments", defaultValue = "1", description = "Segments per Balabit file without #k (default ${DEFAULT-VALUE}).")
    int segments;

    @Option(names = "--segment-s", defaultValue = "180", description = "Balabit segment length in s (default ${DEFAULT-VALUE}).")
    double segmentSeconds;

    @Option(names = "--idle-gap-ms", defaultValue = "2000", description = "Idle gap that splits Balabit activity, ms (default ${DEFAULT-VALUE}).")
    double idleGapMillis;

    /**
     * Loads the traces these options name ({@link TraceLoader#load}).
     *
     * @throws IllegalArgumentException if a file is missing or malformed, or the format unknown
     */
    public List<PointerTrace> load() {
        checkSegments(segments, segmentSeconds, idleGapMillis);
        return TraceLoader.load(traces, TraceLoader.Format.parse(traceFormat), segments, segmentSeconds * 1000,
                idleGapMillis);
    }

    /**
     * Refuses segment settings out of range, naming the options ({@code --segments},
     * {@code --segment-s}, {@code --idle-gap-ms}) rather than the reader's settings.
     */
    public static void checkSegments(int segments, double segmentSeconds, double idleGapMillis) {
        if (segments < 1) {
            throw new IllegalArgumentException("--segments must be >= 1, was " + segments);
        }
        if (!(segmentSeconds > 0) || Double.isInfinite(segmentSeconds)) {
            throw new IllegalArgumentException("--segment-s must be finite and > 0, was " + segmentSeconds);
        }
        if (!(idleGapMillis > 0) || Double.isInfinite(idleGapMillis)) {
            throw new IllegalArgumentException("--idle-gap-ms must be finite and > 0, was " + idleGapMillis);
        }
    }
}
