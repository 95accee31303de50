package dev.khameleon.examples.crossfilter;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The flights table (Falcon's {@code flights-10k.csv}: US DOT on-time data) held in memory:
 * date, origin and destination, and the six numeric columns of the flights views
 * ({@link Views#flights()}), with {@code NaN} for a missing value. Immutable.
 *
 * <p>Times ({@code DEP_TIME}, {@code ARR_TIME}) are recorded as {@code hhmm} clock times and
 * held as hours since midnight ({@code hh + mm/60}); the DOT writes midnight as {@code 2400},
 * which becomes {@code 0.0}. Delays, air time and distance are minutes and miles as recorded.
 */
public final class FlightsTable {
    /** The CSV header this reader requires, in order. */
    public static final List<String> HEADER = List.of(
            "FL_DATE", "ORIGIN", "DEST", "DEP_TIME", "DEP_DELAY", "ARR_TIME", "ARR_DELAY", "AIR_TIME", "DISTANCE");

    /** The numeric columns, in the order of the flights views (the index of {@link #row}). */
    public static final List<String> NUMERIC = List.of(
            "DISTANCE", "ARR_TIME", "DEP_TIME", "DEP_DELAY", "ARR_DELAY", "AIR_TIME");

    private final int[] dates;
    private final String[] origins;
    private final String[] destinations;
    private final double[][] values; // [NUMERIC index][row]
    private final int[] missing; // per NUMERIC index

    private FlightsTable(int[] dates, String[] origins, String[] destinations, double[][] values, int[] missing) {
        this.dates = dates;
        this.origins = origins;
        this.destinations = destinations;
        this.values = values;
        this.missing = missing;
    }

    /**
     * Reads a flights CSV with exactly the {@link #HEADER} columns. Empty numeric fields are
     * missing values (counted per column); anything else that is not a number, or a time that is
     * not {@code hhmm} with {@code hh <= 24, mm < 60}, is an error naming the line.
     *
     * @throws IOException on a read error
     * @throws IllegalArgumentException on a wrong header or a malformed line
     */
    public static FlightsTable read(Path csv) throws IOException {
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(csv, StandardCharsets.UTF_8)) {
            String header = in.readLine();
            if (header == null || !Arrays.asList(header.strip().split(",", -1)).equals(HEADER)) {
                throw new IllegalArgumentException(csv + ": header must be " + String.join(",", HEADER)
                        + ", was " + header);
            }
            String line;
            int lineNo = 1;
            while ((line = in.readLine()) != null) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                String[] f = line.split(",", -1);
                if (f.length != HEADER.size()) {
                    throw new IllegalArgumentException(csv + ":" + lineNo + ": expected " + HEADER.size()
                            + " fields, found " + f.length);
                }
                rows.add(f);
            }
        }
        int n = rows.size();
        int[] dates = new int[n];
        String[] origins = new String[n];
        String[] dests = new String[n];
        double[][] values = new double[NUMERIC.size()][n];
        int[] missing = new int[NUMERIC.size()];
        for (int r = 0; r < n; r++) {
            String[] f = rows.get(r);
            String where = csv + ":" + (r + 2);
            dates[r] = (int) number(f[0], where, "FL_DATE", true);
            origins[r] = f[1].strip().intern();
            dests[r] = f[2].strip().intern();
            for (int c = 0; c < NUMERIC.size(); c++) {
                String column = NUMERIC.get(c);
                String field = f[HEADER.indexOf(column)].strip();
                double x;
                if (field.isEmpty()) {
                    x = Double.NaN;
                    missing[c]++;
                } else if (column.equals("DEP_TIME") || column.equals("ARR_TIME")) {
                    x = hours(field, where, column);
                } else {
                    x = number(field, where, column, false);
                }
                values[c][r] = x;
            }
        }
        return new FlightsTable(dates, origins, dests, values, missing);
    }

    private static double number(String field, String where, String column, boolean required) {
        try {
            double x = Double.parseDouble(field.strip());
            if (!Double.isFinite(x)) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": " + column + " is not a number: '" + field + "'"
                    + (required ? " (required)" : ""));
        }
    }

    private static double hours(String field, String where, String column) {
        if (field.length() != 4 || !field.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException(where + ": " + column + " must be a hhmm time, was '" + field + "'");
        }
        int hh = Integer.parseInt(field.substring(0, 2));
        int mm = Integer.parseInt(field.substring(2));
        if (hh > 24 || mm >= 60 || (hh == 24 && mm > 0)) {
            throw new IllegalArgumentException(where + ": " + column + " is not a clock time: '" + field + "'");
        }
        return hh == 24 ? 0.0 : hh + mm / 60.0;
    }

    /** Number of rows. */
    public int size() {
        return dates.length;
    }

    /**
     * How many rows have no value for {@code view}'s column.
     *
     * @throws IllegalArgumentException unless the view's column is one of {@link #NUMERIC}
     */
    public int missing(View view) {
        return missing[numeric(view.name())];
    }

    /**
     * {@code view}'s value in row {@code row}, {@code NaN} when missing.
     *
     * @throws IllegalArgumentException unless the view's column is one of {@link #NUMERIC}
     */
    public double value(View view, int row) {
        return values[numeric(view.name())][row];
    }

    /** The value of numeric column {@code column} (one of {@link #NUMERIC}) in row {@code row}. */
    double value(String column, int row) {
        return values[numeric(column)][row];
    }

    private static int numeric(String column) {
        int c = NUMERIC.indexOf(column);
        if (c < 0) {
            throw new IllegalArgumentException(column + " is not a numeric flights column " + NUMERIC);
        }
        return c;
    }

    /** The six numeric values of row {@code row}, indexed as the flights views (a fresh array). */
    double[] row(int row) {
        double[] r = new double[values.length];
        for (int v = 0; v < values.length; v++) {
            r[v] = values[v][row];
        }
        return r;
    }

    /** Flight date of row {@code row} as {@code yyyymmdd}. */
    public int date(int row) {
        return dates[row];
    }

    /** Origin airport code of row {@code row}. */
    public String origin(int row) {
        return origins[row];
    }

    /** Destination airport code of row {@code row}. */
    public String destination(int row) {
        return destinations[row];
    }

    /**
     * The rows of a table of {@code rows} rows made from this one: when {@code rows == size()}
     * the table itself (0, 1, ..., size-1); otherwise a uniform sample of this table's rows
     * <em>with replacement</em>, drawn by a {@link SplittableRandom} seeded with {@code seed}, so
     * the same seed always gives the same larger table. Resampling keeps every column's
     * distribution and the correlations within a row, but adds no new flights: it is a scale
     * test of the backend, not more data.
     *
     * @throws IllegalArgumentException if {@code rows < 1} or the table is empty
     */
    public int[] sample(int rows, long seed) {
        return sample(size(), rows, seed);
    }

    /**
     * As {@link #sample(int, long)} for a table of {@code size} rows: the row numbers of a table
     * of {@code rows} rows made from it.
     *
     * @throws IllegalArgumentException if {@code rows < 1} or {@code size < 1}
     */
    public static int[] sample(int size, int rows, long seed) {
        if (rows < 1) {
            throw new IllegalArgumentException("rows must be >= 1, was " + rows);
        }
        if (size == 0) {
            throw new IllegalArgumentException("cannot sample an empty table");
        }
        int[] out = new int[rows];
        if (rows == size) {
            Arrays.setAll(out, i -> i);
            return out;
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < rows; i++) {
            out[i] = random.nextInt(size);
        }
        return out;
    }
}
