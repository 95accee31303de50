package dev.khameleon.examples.crossfilter;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One histogram of a crossfilter: a column of the table, what it shows, and its {@link Bins}.
 * Views are made by a {@link Views} configuration ({@link Views#flights()} for the crossfilter
 * benchmark's six flights views) and belong to it: {@link #index()} is the view's position there,
 * its request id on the live server. Immutable; two views are equal only if they are the same
 * object.
 *
 * <p>Every kind of bins maps a value to a number {@code x} in a domain {@code [start, stop)}
 * (numeric range: the value itself; dates: units since 1970-01-01; categories: {@code i + 0.5}
 * for the {@code i}-th category). A brush on a view is a half-open range of pixels
 * {@code [p0, p1)} with {@code 0 <= p0 <= p1 <= PIXELS}; {@code x} lies in pixel
 * {@code floor((x - start) * PIXELS / (stop - start))} and in bin
 * {@code floor((x - start) / step)}. Computing the pixel with the multiplication first keeps
 * values that sit exactly on a pixel edge (1000 miles is the edge of pixel 70) in the same pixel
 * in Java, DuckDB and PostgreSQL. Values outside {@code [start, stop)}, and categories not
 * listed, lie in no pixel and in no bin, as in the benchmark's interface. A category thus lies in
 * the middle pixel of its band of pixels {@code [floor(i * PIXELS / K), floor((i + 1) * PIXELS / K))}:
 * a brush selects it when it covers that pixel.
 */
public final class View {
    /**
     * Width of every view's brush axis in pixels: the {@code width} of each view in the
     * benchmark's views geometry ({@code crossfilter/views/views.json.gz}); {@link Workflows}
     * checks recorded brushes against it.
     */
    public static final int PIXELS = 350;

    private final Views views;
    private final int index;
    private final String name;
    private final String title;
    private final String unit;
    private final Bins bins;
    private final double start;
    private final double stop;
    private final double step;
    private final int binCount;

    /** A view of {@code views} at {@code index}; {@code bins} must be resolved (not top-K). */
    View(Views views, int index, String name, String title, String unit, Bins bins) {
        this.views = Objects.requireNonNull(views, "views");
        this.index = index;
        this.name = Objects.requireNonNull(name, "column");
        this.title = Objects.requireNonNull(title, "title");
        this.unit = Objects.requireNonNull(unit, "unit");
        this.bins = Objects.requireNonNull(bins, "bins");
        if (bins instanceof Bins.Range r) {
            start = r.start();
            stop = r.stop();
            step = r.step();
        } else if (bins instanceof Bins.Dates d) {
            start = d.start();
            stop = d.stop();
            step = 1;
        } else if (bins instanceof Bins.Categories c) {
            start = 0;
            stop = c.values().size();
            step = 1;
        } else {
            throw new IllegalArgumentException("view " + name + ": top-" + ((Bins.TopCategories) bins).k()
                    + " categories must be resolved against the table first");
        }
        this.binCount = (int) Math.rint((stop - start) / step);
    }

    /** The configuration this view belongs to. */
    public Views views() {
        return views;
    }

    /** The view's position in {@link #views()}: its request id on the live server. */
    public int index() {
        return index;
    }

    /** The view's name: its column as the configuration writes it, e.g. {@code DEP_DELAY}. */
    public String name() {
        return name;
    }

    /** The SQL column holding this view's values (lower case, unquoted). */
    public String column() {
        return name.toLowerCase(Locale.ROOT);
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

    /** How the view bins its column (never {@link Bins.TopCategories}: those are resolved). */
    public Bins binning() {
        return bins;
    }

    /** Lower end of the brush axis and of the first bin, in the domain. */
    public double start() {
        return start;
    }

    /** Upper end (exclusive) of the brush axis and of the last bin, in the domain. */
    public double stop() {
        return stop;
    }

    /** Width of one histogram bin, in the domain. */
    public double step() {
        return step;
    }

    /** How many bins the histogram has. */
    public int bins() {
        return binCount;
    }

    /**
     * A label of bin {@code bin} for people: its category, its date ({@code yyyy-mm-dd}) or hour
     * ({@code yyyy-mm-ddThh:00}), or its lower edge for a numeric range.
     *
     * @throws IndexOutOfBoundsException unless {@code 0 <= bin < bins()}
     */
    public String binLabel(int bin) {
        Objects.checkIndex(bin, binCount);
        if (bins instanceof Bins.Categories c) {
            return c.values().get(bin);
        }
        if (bins instanceof Bins.Dates d) {
            return d.by() == Bins.DateUnit.DAY ? d.from().toLocalDate().plusDays(bin).toString()
                    : d.from().plusHours(bin).toString();
        }
        return Bins.text(start + bin * step);
    }

    /** The pixel {@code x} lies in, possibly outside {@code [0, PIXELS)}; -1 for NaN (missing). */
    public int pixelOf(double x) {
        if (Double.isNaN(x)) {
            return -1;
        }
        return (int) Math.floor((x - start) * PIXELS / (stop - start));
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

    /** The column of the loaded table holding this view's pixel (see {@link #pixelSql}). */
    String pixelColumn() {
        return "px_" + column();
    }

    /** The column of the loaded table holding this view's bin (see {@link #binSql}). */
    String binColumn() {
        return "bin_" + column();
    }

    /**
     * SQL for this view's domain value of a row, its column prefixed by {@code qualifier} (e.g.
     * {@code "b."}); NULL when the value is NULL or an unlisted category.
     */
    String valueSql(String qualifier) {
        String col = qualifier + column();
        if (bins instanceof Bins.Dates d) {
            return "(EXTRACT(EPOCH FROM " + col + ") / " + d.by().seconds() + ".0)";
        }
        if (bins instanceof Bins.Categories c) {
            StringBuilder sb = new StringBuilder("CASE CAST(").append(col).append(" AS VARCHAR)");
            List<String> values = c.values();
            for (int i = 0; i < values.size(); i++) {
                sb.append(" WHEN '").append(values.get(i).replace("'", "''")).append("' THEN ").append(i).append(".5");
            }
            return sb.append(" END").toString();
        }
        return col;
    }

    /** SQL for this view's pixel (NULL when the value is NULL), its column prefixed by {@code qualifier}. */
    String pixelSql(String qualifier) {
        return "FLOOR((" + valueSql(qualifier) + " - (" + Bins.text(start) + ")) * " + PIXELS + ".0 / "
                + decimal(stop - start) + ")";
    }

    /** SQL for this view's bin (may be outside [0, bins()) for values outside the domain). */
    String binSql(String qualifier) {
        return "FLOOR((" + valueSql(qualifier) + " - (" + Bins.text(start) + ")) / " + decimal(step) + ")";
    }

    private static String decimal(double x) {
        String s = Bins.text(x);
        return s.contains(".") ? s : s + ".0";
    }

    /** The view's name. */
    @Override
    public String toString() {
        return name;
    }
}
