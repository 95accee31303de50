package dev.khameleon.examples.gallery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A recorded pointer trace in the original Khameleon gallery's format — a JSON array of
 * {@code {"e": [pageX, pageY, epochMillis, "m"|"d"|"u"], ...}} — with the helpers to replay it
 * over a mosaic of another size. Immutable.
 */
final class PointerTrace {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One pointer sample: position in pixels and time in milliseconds. */
    record Sample(double x, double y, long timeMillis) {
    }

    private final List<Sample> samples;

    private PointerTrace(List<Sample> samples) {
        this.samples = List.copyOf(samples);
    }

    /**
     * Reads a trace file.
     *
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException if it is not a non-empty array of such events
     */
    static PointerTrace read(Path file) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        if (root == null || !root.isArray() || root.isEmpty()) {
            throw new IllegalArgumentException("pointer trace must be a non-empty JSON array: " + file);
        }
        List<Sample> samples = new ArrayList<>(root.size());
        for (JsonNode event : root) {
            JsonNode e = event.get("e");
            if (e == null || !e.isArray() || e.size() < 3 || !e.get(0).isNumber() || !e.get(1).isNumber()
                    || !e.get(2).isNumber()) {
                throw new IllegalArgumentException("event " + samples.size() + " of " + file
                        + " is not {\"e\": [x, y, timeMillis, ...]}: " + event);
            }
            samples.add(new Sample(e.get(0).asDouble(), e.get(1).asDouble(), e.get(2).asLong()));
        }
        return new PointerTrace(samples);
    }

    /** The samples in recorded order. */
    List<Sample> samples() {
        return samples;
    }

    /** The samples of the first {@code millis} milliseconds. */
    PointerTrace first(long millis) {
        long start = samples.get(0).timeMillis();
        return new PointerTrace(samples.stream().filter(s -> s.timeMillis() - start <= millis).toList());
    }

    /**
     * The trace stretched linearly so that its bounding box fills {@code width × height}
     * (a 2-pixel margin inside), times unchanged: the same gestures over a mosaic of that size.
     */
    PointerTrace scaledTo(double width, double height) {
        double minX = samples.stream().mapToDouble(Sample::x).min().orElseThrow();
        double maxX = samples.stream().mapToDouble(Sample::x).max().orElseThrow();
        double minY = samples.stream().mapToDouble(Sample::y).min().orElseThrow();
        double maxY = samples.stream().mapToDouble(Sample::y).max().orElseThrow();
        double sx = (width - 5) / Math.max(1, maxX - minX);
        double sy = (height - 5) / Math.max(1, maxY - minY);
        return new PointerTrace(samples.stream()
                .map(s -> new Sample(2 + Math.round((s.x() - minX) * sx), 2 + Math.round((s.y() - minY) * sy),
                        s.timeMillis()))
                .toList());
    }
}
