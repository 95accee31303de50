package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Reads the crossfilter benchmark's recorded sessions ({@code *_workflow.json.gz}) and its views
 * geometry ({@code views.json.gz}), on the flights views ({@link Views#flights()}); a session is
 * replayed on other views with {@link Workflow#onto}.
 *
 * <p>A selection is {@code "COL >= lo AND COL < hi"}. About a fifth of the recorded selections
 * (a brush dragged leftwards) have their bounds in string order, e.g.
 * {@code DISTANCE >= 1014.28 AND DISTANCE < 985.71}: the bounds are sorted numerically. Every
 * bound must lie on the view's pixel grid ({@link View#valueAtPixel}, within 1e-6 pixel);
 * anything else is an error naming the file and the interaction.
 */
public final class Workflows {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SELECTION = Pattern.compile(
            "\\s*(\\w+)\\s*>=\\s*(\\S+)\\s+AND\\s+(\\w+)\\s*<\\s*(\\S+)\\s*");
    private static final String SUFFIX = "_workflow.json.gz";

    private Workflows() {
    }

    /**
     * Reads every {@code *_flights_*_workflow.json.gz} in {@code dir}, sorted by file name.
     *
     * @throws IOException on a read error
     * @throws IllegalArgumentException if a file is malformed
     */
    public static List<Workflow> readAll(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).sorted().toList();
        }
        List<Workflow> out = new ArrayList<>();
        for (Path f : files) {
            out.add(read(f));
        }
        return out;
    }

    /**
     * Reads one workflow file.
     *
     * @throws IOException on a read error
     * @throws IllegalArgumentException if the file is malformed
     */
    public static Workflow read(Path file) throws IOException {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            root = JSON.readTree(in);
        }
        JsonNode interactions = root == null ? null : root.get("interactions");
        if (interactions == null || !interactions.isArray()) {
            throw new IllegalArgumentException(file + ": no \"interactions\" array");
        }
        List<BrushEvent> events = new ArrayList<>();
        long lastTime = Long.MIN_VALUE;
        for (int i = 0; i < interactions.size(); i++) {
            JsonNode n = interactions.get(i);
            String where = file.getFileName() + ", interaction " + i;
            BrushEvent e = parse(n, where);
            if (e.timeMs() < lastTime) {
                throw new IllegalArgumentException(where + ": time goes backwards (" + e.timeMs() + " < " + lastTime + ")");
            }
            lastTime = e.timeMs();
            events.add(e);
        }
        String name = file.getFileName().toString();
        return new Workflow(name.endsWith(SUFFIX) ? name.substring(0, name.length() - SUFFIX.length()) : name, events);
    }

    static BrushEvent parse(JsonNode n, String where) {
        View view = view(n.path("name").asText(), where);
        if (!n.path("time").isNumber()) {
            throw new IllegalArgumentException(where + ": no numeric \"time\"");
        }
        String selection = n.path("selection").asText();
        Matcher m = SELECTION.matcher(selection);
        if (!m.matches() || !m.group(1).equals(view.name()) || !m.group(3).equals(view.name())) {
            throw new IllegalArgumentException(where + ": selection is not \"" + view + " >= lo AND " + view
                    + " < hi\": " + selection);
        }
        int a = pixel(view, m.group(2), where);
        int b = pixel(view, m.group(4), where);
        return new BrushEvent(n.get("time").asLong(), view, Math.min(a, b), Math.max(a, b),
                n.path("metadata").path("brush_id").asInt(0));
    }

    private static View view(String name, String where) {
        return Views.flights().find(name)
                .orElseThrow(() -> new IllegalArgumentException(where + ": unknown view '" + name + "'"));
    }

    private static int pixel(View view, String bound, String where) {
        double x;
        try {
            x = Double.parseDouble(bound);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": bound is not a number: '" + bound + "'");
        }
        double p = (x - view.start()) * View.PIXELS / (view.stop() - view.start());
        long rounded = Math.round(p);
        if (!(Math.abs(p - rounded) < 1e-6) || rounded < 0 || rounded > View.PIXELS) {
            throw new IllegalArgumentException(where + ": bound " + bound + " of " + view
                    + " is not a pixel edge in [0, " + View.PIXELS + "]");
        }
        return (int) rounded;
    }

    /**
     * The width in pixels of each view in a views geometry file ({@code views.json.gz}: an array
     * of views with {@code name} and {@code width}).
     *
     * @throws IOException on a read error
     * @throws IllegalArgumentException if the file is malformed or names an unknown view
     */
    public static Map<View, Integer> viewWidths(Path viewsJsonGz) throws IOException {
        JsonNode root;
        try (InputStream in = new GZIPInputStream(Files.newInputStream(viewsJsonGz))) {
            root = JSON.readTree(in);
        }
        if (root == null || !root.isArray()) {
            throw new IllegalArgumentException(viewsJsonGz + ": expected an array of views");
        }
        Map<View, Integer> out = new TreeMap<>(Comparator.comparingInt(View::index));
        for (JsonNode v : root) {
            if (!v.path("width").isInt()) {
                throw new IllegalArgumentException(viewsJsonGz + ": view without an integer width: " + v.path("name"));
            }
            out.put(view(v.path("name").asText(), viewsJsonGz.toString()), v.get("width").asInt());
        }
        return out;
    }
}
