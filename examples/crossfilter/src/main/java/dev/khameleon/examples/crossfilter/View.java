package dev.khameleon.examples.crossfilter;

/**
 * The six histograms of the crossfilter benchmark's flights interface, with the value domain a
 * view's 350-pixel brush axis spans and the bins its histogram draws.
 *
 * <p>A brush on a view is a half-open range of pixels {@code [p0, p1)} with
 * {@code 0 <= p0 <= p1 <= PIXELS}; a value {@code x} lies in pixel
 * {@code floor((x - start) * PIXELS / (stop - start))}. Computing the pixel with the
 * multiplication first keeps values that sit exactly on a pixel edge (1000 miles is the edge of
 * pixel 70) in the same pixel in Java, DuckDB and PostgreSQL. Values outside
 * {@code [start, stop)} lie in no pixel and in no bin, as in the benchmark's interface.
 */
public enum View {
    /** Flight distance in miles, bins of 200 over [0, 5000). */
    DISTANCE(0, 5000, 200, "Distance", "mi"),
    /** Arrival time in hours since midnight (local), bins of 1 over [0, 24). */
    ARR_TIME(0, 24, 1, "Arrival time", "hour of day"),
    /** Departure time in hours since midnight (local), bins of 1 over [0, 24). */
    DEP_TIME(0, 24, 1, "Departure time", "hour of day"),
    /** Departure delay in minutes (negative: early), bins of 5 over [-20, 60). */
    DEP_DELAY(-20, 60, 5, "Departure delay", "min"),
    /** Arrival delay in minutes (negative: early), bins of 5 over [-20, 60). */
    ARR_DELAY(-20, 60, 5, "Arrival delay", "min"),
    /** Time in the air in minutes, bins of 20 over [0, 500). */
    AIR_TIME(0, 500, 20, "Air time", "min");

    /**
     * Width of every view's brush axis in pixels: the {@code width} of each view in the
     * benchmark's views geometry ({@code crossfilter/views/views.json.gz}); {@link Workflows}
     * checks recorded brushes against it.
     */
    public static final int PIXELS = 350;

    private static final View[] VALUES = values();

    private final int start;
    private final int stop;
    private final int step;
    private final String title;
    private final String unit;

    View(int start, int stop, int step, String title, String unit) {
        this.start = start;
        this.stop = stop;
        this.step = step;
        this.title = title;
        this.unit = unit;
    }

    /** The view with ordinal {@code ordinal}. @throws IllegalArgumentException if out of range */
    public static View of(int ordinal) {
        if (ordinal < 0 || ordinal >= VALUES.length) {
            throw new IllegalArgumentException("view ordinal must be in [0, " + VALUES.length + "), was " + ordinal);
        }
        return VALUES[ordinal];
    }

    /** The SQL column holding this view's values (lower case, unquoted). */
    public String column() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** What the view shows, for people, e.g. "Departure delay" (the page's chart title). */
    public String title() {
        return title;
    }

    /** The unit of the view's values, e.g. "min" (the page's axis unit). */
    public String unit() {
        return unit;
    }

    /** The title with its unit, e.g. "Departure delay (min)". */
    public String label() {
        return title + " (" + unit + ")";
    }

    /** Lower end of the brush axis and of the first bin. */
    public int start() {
        return start;
    }

    /** Upper end (exclusive) of the brush axis and of the last bin. */
    public int stop() {
        return stop;
    }

    /** Width of one histogram bin, in the view's unit. */
    public int step() {
        return step;
    }

    /** How many bins the histogram has. */
    public int bins() {
        return (stop - start) / step;
    }

    /** The pixel {@code x} lies in, possibly outside {@code [0, PIXELS)}; -1 for NaN (missing). */
    public int pixelOf(double x) {
        if (Double.isNaN(x)) {
            return -1;
        }
        return (int) Math.floor((x - start) * PIXELS / (double) (stop - start));
    }

    /** The bin {@code x} lies in, or -1 when it lies in none (outside the domain or missing). */
    public int binOf(double x) {
        if (Double.isNaN(x) || x < start || x >= stop) {
            return -1;
        }
        return (int) Math.floor((x - start) / step);
    }

    /** The pixel row nearest to the left edge of bin {@code bin} (0..bins()): the coarse rows of a tile. */
    public int binEdgePixel(int bin) {
        return (int) Math.round((double) bin * step * PIXELS / (stop - start));
    }

    /** The value at the left edge of pixel {@code pixel}, as the benchmark's brushes record it. */
    public double valueAtPixel(int pixel) {
        return start + (double) pixel * (stop - start) / PIXELS;
    }

    /** The column of the loaded table holding this view's pixel (see {@link #pixelSql()}). */
    String pixelColumn() {
        return "px_" + column();
    }

    /** The column of the loaded table holding this view's bin (see {@link #binSql()}). */
    String binColumn() {
        return "bin_" + column();
    }

    /** SQL for this view's pixel (NULL when the value is NULL). */
    String pixelSql() {
        return "FLOOR((" + column() + " - (" + start + ")) * " + PIXELS + ".0 / " + (stop - start) + ".0)";
    }

    /** SQL for this view's bin (may be outside [0, bins()) for values outside the domain). */
    String binSql() {
        return "FLOOR((" + column() + " - (" + start + ")) / " + step + ".0)";
    }
}
