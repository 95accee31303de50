package dev.khameleon.simulator.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Reads traces recorded on the original Khameleon image-gallery demo: a JSON array of
 * {@code {"e": [pageX, pageY, epoch_ms, "m"|"d"|"u"], "etype": "p"}}, already resampled on a
 * 20 ms grid. Every pointer event ({@code etype} {@code "p"}) is a sample, whatever its kind;
 * samples sharing a timestamp collapse to the last; a sample whose time goes backwards is
 * dropped, and so is one with a negative or non-finite position. The screen runs from the page
 * origin to the largest pageX and pageY seen (the demo's page layout was not recorded).
 *
 * <p>Stateless and thread-safe.
 */
public final class GalleryReader {
    private static final ObjectMapper JSON = new ObjectMapper();

    private GalleryReader() {
    }

    /**
     * Reads one trace file.
     *
     * @throws IllegalArgumentException if the file is not JSON, not such an array, or has no samples
     * @throws UncheckedIOException     if it cannot be read
     */
    public static PointerTrace read(Path file) {
        JsonNode root;
        try {
            root = JSON.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(file + ": not JSON (" + e.getOriginalMessage() + ")", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read gallery trace " + file, e);
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException(file + ": expected a JSON array of pointer events");
        }
        Samples samples = new Samples();
        int index = 0;
        for (JsonNode event : root) {
            JsonNode e = event.get("e");
            String type = event.path("etype").asText("p");
            if (!"p".equals(type)) {
                index++;
                continue;
            }
            if (e == null || !e.isArray() || e.size() < 3 || !e.get(0).isNumber() || !e.get(1).isNumber()
                    || !e.get(2).isNumber()) {
                throw new IllegalArgumentException(file + ": event " + index + " is not [pageX, pageY, epoch_ms, kind]");
            }
            double px = e.get(0).asDouble();
            double py = e.get(1).asDouble();
            double time = e.get(2).asDouble();
            index++;
            if (!Double.isFinite(px) || !Double.isFinite(py) || px < 0 || py < 0) {
                continue;
            }
            samples.add(time, px, py);
        }
        if (samples.size() == 0) {
            throw new IllegalArgumentException(file + ": no pointer events with finite, non-negative pageX and pageY");
        }
        String name = "gallery/" + file.getFileName().toString().replaceFirst("\\.json$", "");
        return PointerTrace.of(name, samples.times(), samples.xs(), samples.ys(), Math.floor(samples.maxX()) + 1,
                Math.floor(samples.maxY()) + 1);
    }
}
