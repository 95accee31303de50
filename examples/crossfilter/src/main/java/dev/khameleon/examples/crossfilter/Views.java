package dev.khameleon.examples.crossfilter;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A crossfilter's configuration: the table, where its rows come from, and its {@link View}s in
 * order (a view's position is its index and request id). Made with {@link #builder} or read from
 * a small JSON file ({@link #read}, format in {@code docs/crossfilter.md}); the crossfilter
 * benchmark's six flights views are {@link #flights()}. Immutable and thread-safe.
 *
 * <p>A configuration with top-K categories ({@link Bins.TopCategories}) is <em>unresolved</em>
 * until the table is loaded: its values are the column's most frequent ones, and
 * {@link #resolve} turns them into listed categories. Only a resolved configuration has views.
 */
public final class Views implements Iterable<View> {
    /** The most views a configuration holds (a tile's header stores the active view in a byte). */
    public static final int MAX_VIEWS = 32;

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final String table;
    private final Source source;
    private final List<Spec> specs;
    private final List<View> views;

    private Views(String table, Source source, List<Spec> specs) {
        this.table = table;
        this.source = source;
        this.specs = List.copyOf(specs);
        boolean resolved = specs.stream().noneMatch(s -> s.bins() instanceof Bins.TopCategories);
        List<View> list = new ArrayList<>();
        if (resolved) {
            for (int i = 0; i < specs.size(); i++) {
                Spec s = specs.get(i);
                list.add(new View(this, i, s.column(), s.title(), s.unit(), s.bins()));
            }
        }
        this.views = resolved ? Collections.unmodifiableList(list) : null;
    }

    /**
     * How one view is declared: its column (as the table names it; the view's name), title, unit
     * and bins.
     *
     * @param column the column, an SQL identifier
     * @param title  what the view shows, for people
     * @param unit   the unit of its values, for people (may be empty)
     * @param bins   how it bins the column
     */
    public record Spec(String column, String title, String unit, Bins bins) {
        /** Checks that no part is null. */
        public Spec {
            Objects.requireNonNull(column, "column");
            Objects.requireNonNull(title, "title");
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(bins, "bins");
        }
    }

    /** How a table's rows are read before they are loaded into the database. */
    public enum Reader {
        /**
         * {@link FlightsTable}: Falcon's flights CSV, {@code hhmm} times as hours; DuckDB or
         * PostgreSQL. Its columns are {@link FlightsTable#HEADER}, {@code FL_DATE} an integer.
         */
        FLIGHTS,
        /** DuckDB's own CSV reader, a view's column typed by its bins; DuckDB only. */
        CSV
    }

    /**
     * Where a table's rows come from.
     *
     * @param reader          how the file is read
     * @param csv             the CSV file, relative to the shared data folder unless absolute
     * @param dateFormat      DuckDB's {@code dateformat} for date columns (e.g. {@code %Y%m%d}), or null for its detection
     * @param timestampFormat DuckDB's {@code timestampformat} for timestamp columns, or null for its detection
     */
    public record Source(Reader reader, String csv, String dateFormat, String timestampFormat) {
        /** Checks that the reader and the file are named. */
        public Source {
            Objects.requireNonNull(reader, "reader");
            Objects.requireNonNull(csv, "csv");
        }

        /** The CSV file, resolved against the shared data folder {@code data}. */
        public Path path(Path data) {
            Path p = Path.of(csv);
            return p.isAbsolute() ? p : data.resolve(p);
        }
    }

    /** A builder of a configuration for the table named {@code table}. */
    public static Builder builder(String table) {
        return new Builder(table);
    }

    /**
     * The crossfilter benchmark's six flights views ({@code flights-views.json}, a resource of this
     * package): {@code DISTANCE}, {@code ARR_TIME}, {@code DEP_TIME}, {@code DEP_DELAY},
     * {@code ARR_DELAY}, {@code AIR_TIME}, in that order, over the table {@code flights}. The same
     * object on every call.
     */
    public static Views flights() {
        return Flights.VIEWS;
    }

    private static final class Flights {
        static final Views VIEWS = load();

        private static Views load() {
            String name = "flights-views.json";
            try (InputStream in = Views.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("resource " + name + " is missing from the jar");
                }
                return ViewsFile.parse(in.readAllBytes(), name);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Reads a views file (JSON).
     *
     * @throws IOException if it cannot be read
     * @throws IllegalArgumentException if it is malformed: one line naming the file and the field
     */
    public static Views read(Path file) throws IOException {
        return ViewsFile.parse(Files.readAllBytes(file), file.toString());
    }

    /** The table's name in the database. */
    public String table() {
        return table;
    }

    /** Where the rows come from, if the configuration says. */
    public Optional<Source> source() {
        return Optional.ofNullable(source);
    }

    /** The declared views, in order, resolved or not. */
    public List<Spec> specs() {
        return specs;
    }

    /** Whether every view has its bins (no top-K categories left to resolve). */
    public boolean isResolved() {
        return views != null;
    }

    /**
     * This configuration with every top-K view's categories taken from {@code topValues} (column
     * name to its values, most frequent first); the result is resolved.
     *
     * @throws IllegalArgumentException if a top-K column is missing from {@code topValues} or has
     *     no values, naming the view
     */
    public Views resolve(Map<String, List<String>> topValues) {
        List<Spec> out = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            Spec s = specs.get(i);
            if (s.bins() instanceof Bins.TopCategories top) {
                List<String> values = topValues.get(s.column());
                if (values == null || values.isEmpty()) {
                    throw new IllegalArgumentException("views[" + i + "] (" + s.column() + "): top-" + top.k()
                            + " categories: the column has no values");
                }
                List<String> first = values.subList(0, Math.min(top.k(), values.size()));
                s = new Spec(s.column(), s.title(), s.unit(), new Bins.Categories(first));
            }
            out.add(s);
        }
        return new Views(table, source, out);
    }

    /** The views in order. @throws IllegalStateException if the configuration is not resolved */
    public List<View> list() {
        if (views == null) {
            throw new IllegalStateException("views of " + table + " are not resolved (top-K categories)");
        }
        return views;
    }

    /** Number of views. */
    public int size() {
        return specs.size();
    }

    /** The view at {@code index}. @throws IllegalArgumentException if out of range */
    public View get(int index) {
        if (index < 0 || index >= size()) {
            throw new IllegalArgumentException("view index must be in [0, " + size() + "), was " + index);
        }
        return list().get(index);
    }

    /** The view named {@code name} (its column as written), if any. */
    public Optional<View> find(String name) {
        for (View v : list()) {
            if (v.name().equals(name)) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }

    /** The view named {@code name}. @throws IllegalArgumentException if there is none */
    public View view(String name) {
        return find(name).orElseThrow(() -> new IllegalArgumentException("unknown view " + name + " (table "
                + table + ")"));
    }

    /** The views in order. @throws IllegalStateException if the configuration is not resolved */
    @Override
    public Iterator<View> iterator() {
        return list().iterator();
    }

    /** The table and its views' names. */
    @Override
    public String toString() {
        List<String> names = specs.stream().map(Spec::column).toList();
        return "Views[" + table + ": " + String.join(", ", names) + "]";
    }

    /**
     * Builds a {@link Views}. Not thread-safe; {@link #build} validates everything and says what
     * is wrong in one line naming the field ({@code table}, {@code views[i].column}, ...).
     */
    public static final class Builder {
        private final String table;
        private Source source;
        private final List<Spec> specs = new ArrayList<>();

        private Builder(String table) {
            this.table = table;
        }

        /** Where the rows come from. */
        public Builder source(Source source) {
            this.source = Objects.requireNonNull(source, "source");
            return this;
        }

        /** Appends a view; its position is its index. */
        public Builder view(String column, String title, String unit, Bins bins) {
            specs.add(new Spec(column, title, unit, bins));
            return this;
        }

        /**
         * The configuration.
         *
         * @throws IllegalArgumentException if the table or a column is not an SQL identifier, there
         *     are fewer than 2 or more than {@link #MAX_VIEWS} views, or a column appears twice
         */
        public Views build() {
            if (table == null || !IDENTIFIER.matcher(table).matches()) {
                throw new IllegalArgumentException("table: must be an SQL identifier ([A-Za-z_][A-Za-z0-9_]*), was "
                        + table);
            }
            if (specs.isEmpty()) {
                throw new IllegalArgumentException("views: the list is empty");
            }
            if (specs.size() < 2 || specs.size() > MAX_VIEWS) {
                throw new IllegalArgumentException("views: a crossfilter needs 2 to " + MAX_VIEWS + " views, found "
                        + specs.size());
            }
            for (int i = 0; i < specs.size(); i++) {
                String c = specs.get(i).column();
                if (!IDENTIFIER.matcher(c).matches()) {
                    throw new IllegalArgumentException("views[" + i + "].column: must be an SQL identifier"
                            + " ([A-Za-z_][A-Za-z0-9_]*), was '" + c + "'");
                }
                for (int j = 0; j < i; j++) {
                    if (specs.get(j).column().toLowerCase(Locale.ROOT).equals(c.toLowerCase(Locale.ROOT))) {
                        throw new IllegalArgumentException("views[" + i + "].column: duplicate column " + c
                                + " (also views[" + j + "])");
                    }
                }
            }
            if (source != null && source.reader() == Reader.FLIGHTS) {
                for (int i = 0; i < specs.size(); i++) {
                    Spec s = specs.get(i);
                    if (!FlightsTable.HEADER.contains(s.column()) || s.bins() instanceof Bins.Dates) {
                        throw new IllegalArgumentException("views[" + i + "].column: the flights reader has the"
                                + " columns " + FlightsTable.HEADER + " (FL_DATE an integer, no dates), not "
                                + s.column() + " with " + s.bins().kind() + " bins");
                    }
                }
            }
            return new Views(table, source, specs);
        }
    }
}
