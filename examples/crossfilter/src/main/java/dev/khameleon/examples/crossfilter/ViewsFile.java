package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The JSON form of a {@link Views} configuration. Every error is an
 * {@link IllegalArgumentException} of one line, {@code "FILE: FIELD: what is wrong"}, the field
 * written as a path ({@code views[2].bins.step}). Unknown keys and duplicate keys are errors.
 * Stateless.
 */
final class ViewsFile {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private ViewsFile() {
    }

    /** Parses {@code bytes}, read from {@code file} (the name errors give). */
    static Views parse(byte[] bytes, String file) {
        JsonNode root;
        try {
            root = JSON.readTree(bytes);
        } catch (JacksonException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr() + ", column "
                    + e.getLocation().getColumnNr();
            throw new IllegalArgumentException(file + ": not valid JSON" + where + ": "
                    + e.getOriginalMessage().lines().findFirst().orElse(""));
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(file + ": cannot be read: " + e.getMessage());
        }
        try {
            return parse(root);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }

    private static Views parse(JsonNode root) {
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("must be a JSON object with table, views and optionally source");
        }
        keys(root, "", Set.of("table", "source", "views"));
        Views.Builder b = Views.builder(text(root, "table", ""));
        if (root.has("source")) {
            b.source(source(root.get("source")));
        }
        JsonNode views = root.get("views");
        if (views == null || !views.isArray()) {
            throw new IllegalArgumentException("views: required, an array of views");
        }
        for (int i = 0; i < views.size(); i++) {
            String at = "views[" + i + "]";
            JsonNode v = views.get(i);
            if (!v.isObject()) {
                throw new IllegalArgumentException(at + ": must be an object");
            }
            keys(v, at, Set.of("column", "title", "unit", "bins"));
            String column = text(v, "column", at);
            String title = v.has("title") ? text(v, "title", at) : column;
            String unit = v.has("unit") ? text(v, "unit", at) : "";
            b.view(column, title, unit, bins(v.get("bins"), at + ".bins"));
        }
        return b.build();
    }

    private static Views.Source source(JsonNode s) {
        if (!s.isObject()) {
            throw new IllegalArgumentException("source: must be an object");
        }
        keys(s, "source", Set.of("reader", "csv", "dateFormat", "timestampFormat"));
        Views.Reader reader = Views.Reader.CSV;
        if (s.has("reader")) {
            String r = text(s, "reader", "source");
            try {
                reader = Views.Reader.valueOf(r.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("source.reader: unknown reader '" + r + "' (csv or flights)");
            }
        }
        return new Views.Source(reader, text(s, "csv", "source"),
                s.has("dateFormat") ? text(s, "dateFormat", "source") : null,
                s.has("timestampFormat") ? text(s, "timestampFormat", "source") : null);
    }

    private static Bins bins(JsonNode b, String at) {
        if (b == null || !b.isObject()) {
            throw new IllegalArgumentException(at + ": required, an object with a kind");
        }
        String kind = text(b, "kind", at);
        try {
            switch (kind) {
                case "range" -> {
                    keys(b, at, Set.of("kind", "start", "stop", "step"));
                    return new Bins.Range(number(b, "start", at), number(b, "stop", at), number(b, "step", at));
                }
                case "dates" -> {
                    keys(b, at, Set.of("kind", "by", "from", "to"));
                    String by = text(b, "by", at);
                    Bins.DateUnit unit;
                    try {
                        unit = Bins.DateUnit.valueOf(by.toUpperCase(Locale.ROOT));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(at + ".by: unknown unit '" + by + "' (day or hour)");
                    }
                    return new Bins.Dates(unit, instant(b, "from", at), instant(b, "to", at));
                }
                case "categories" -> {
                    keys(b, at, Set.of("kind", "values", "top"));
                    if (b.has("values") == b.has("top")) {
                        throw new IllegalArgumentException(at + ": categories need exactly one of values (a list) or"
                                + " top (a count)");
                    }
                    if (b.has("top")) {
                        JsonNode top = b.get("top");
                        if (!top.isInt()) {
                            throw new IllegalArgumentException(at + ".top: must be an integer, was " + top);
                        }
                        return new Bins.TopCategories(top.intValue());
                    }
                    JsonNode values = b.get("values");
                    if (!values.isArray()) {
                        throw new IllegalArgumentException(at + ".values: must be an array of strings");
                    }
                    List<String> list = new ArrayList<>();
                    for (int i = 0; i < values.size(); i++) {
                        if (!values.get(i).isTextual()) {
                            throw new IllegalArgumentException(at + ".values[" + i + "]: must be a string, was "
                                    + values.get(i));
                        }
                        list.add(values.get(i).textValue());
                    }
                    return new Bins.Categories(list);
                }
                default -> throw new IllegalArgumentException(at + ".kind: unknown bin kind '" + kind
                        + "' (range, dates or categories)");
            }
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            throw m.startsWith(at) ? e : new IllegalArgumentException(at + ": " + m, e);
        }
    }

    private static void keys(JsonNode o, String at, Set<String> allowed) {
        for (Iterator<String> it = o.fieldNames(); it.hasNext(); ) {
            String k = it.next();
            if (!allowed.contains(k)) {
                throw new IllegalArgumentException((at.isEmpty() ? "" : at + ": ") + "unknown key '" + k
                        + "' (allowed: " + String.join(", ", allowed.stream().sorted().toList()) + ")");
            }
        }
    }

    private static String text(JsonNode o, String key, String at) {
        JsonNode n = o.get(key);
        String path = at.isEmpty() ? key : at + "." + key;
        if (n == null) {
            throw new IllegalArgumentException(path + ": required");
        }
        if (!n.isTextual()) {
            throw new IllegalArgumentException(path + ": must be a string, was " + n);
        }
        return n.textValue();
    }

    private static double number(JsonNode o, String key, String at) {
        JsonNode n = o.get(key);
        if (n == null) {
            throw new IllegalArgumentException(at + "." + key + ": required");
        }
        if (!n.isNumber()) {
            throw new IllegalArgumentException(at + "." + key + ": must be a number, was " + n);
        }
        return n.doubleValue();
    }

    private static LocalDateTime instant(JsonNode o, String key, String at) {
        String s = text(o, key, at);
        try {
            return s.length() == 10 ? LocalDate.parse(s).atStartOfDay() : LocalDateTime.parse(s);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(at + "." + key + ": not a date (yyyy-mm-dd) or time"
                    + " (yyyy-mm-ddThh:mm), was '" + s + "'");
        }
    }
}
