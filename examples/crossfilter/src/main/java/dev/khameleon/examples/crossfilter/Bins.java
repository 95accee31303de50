package dev.khameleon.examples.crossfilter;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How a {@link View} bins its column: a numeric range, a date range by day or hour, or a list of
 * categories. Every kind maps a value to a number in a domain {@code [start, stop)} cut into
 * {@code bins()} bins of width {@code step}; the view's pixel and bin rules apply to that number.
 * Values are immutable and validate at construction, throwing an
 * {@link IllegalArgumentException} whose message names the bad field.
 */
public sealed interface Bins permits Bins.Range, Bins.Dates, Bins.Categories, Bins.TopCategories {

    /** The {@code kind} of this binning in a views file: {@code range}, {@code dates} or {@code categories}. */
    String kind();

    /**
     * Numeric bins {@code [start, start + step)}, ..., up to {@code stop}: the column's value is
     * the domain value.
     *
     * @param start lower end of the first bin
     * @param stop  upper end (exclusive) of the last bin, above {@code start}
     * @param step  width of a bin, dividing {@code stop - start} into at most {@link View#PIXELS} bins
     */
    record Range(double start, double stop, double step) implements Bins {
        /** @throws IllegalArgumentException if the range is empty, reversed or not divided by {@code step} */
        public Range {
            if (!Double.isFinite(start) || !Double.isFinite(stop) || !Double.isFinite(step)) {
                throw new IllegalArgumentException("start, stop and step must be finite numbers");
            }
            if (!(stop > start)) {
                throw new IllegalArgumentException("stop (" + text(stop) + ") must be greater than start ("
                        + text(start) + ")");
            }
            if (!(step > 0)) {
                throw new IllegalArgumentException("step must be > 0, was " + text(step));
            }
            double n = (stop - start) / step;
            if (Math.abs(n - Math.rint(n)) > 1e-9 * Math.max(1, n)) {
                throw new IllegalArgumentException("step " + text(step) + " does not divide the range ["
                        + text(start) + ", " + text(stop) + ")");
            }
            checkBins((int) Math.rint(n));
        }

        @Override
        public String kind() {
            return "range";
        }
    }

    /** The unit a {@link Dates} view bins by. */
    enum DateUnit {
        /** One bin per calendar day; the column is a {@code DATE} (or a timestamp). */
        DAY(86_400),
        /** One bin per hour; the column is a {@code TIMESTAMP}. */
        HOUR(3_600);

        private final int seconds;

        DateUnit(int seconds) {
            this.seconds = seconds;
        }

        /** Seconds in one unit. */
        public int seconds() {
            return seconds;
        }
    }

    /**
     * A date or timestamp column binned by day or hour over {@code [from, to)} (UTC, no time zone):
     * the domain value is the instant's number of units since 1970-01-01, so a date lies at its
     * midnight and a timestamp at its instant.
     *
     * @param by   the bin width
     * @param from first instant of the first bin, on a whole unit
     * @param to   end (exclusive) of the last bin, on a whole unit, after {@code from}
     */
    record Dates(DateUnit by, LocalDateTime from, LocalDateTime to) implements Bins {
        /** @throws IllegalArgumentException if the range is empty, reversed or not on whole units */
        public Dates {
            Objects.requireNonNull(by, "by");
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            if (!to.isAfter(from)) {
                throw new IllegalArgumentException("to (" + to + ") must be after from (" + from + ")");
            }
            for (LocalDateTime t : List.of(from, to)) {
                if (t.toEpochSecond(ZoneOffset.UTC) % by.seconds() != 0) {
                    throw new IllegalArgumentException((t == from ? "from" : "to") + " (" + t + ") must be on a whole "
                            + by.name().toLowerCase(java.util.Locale.ROOT));
                }
            }
            long n = (to.toEpochSecond(ZoneOffset.UTC) - from.toEpochSecond(ZoneOffset.UTC)) / by.seconds();
            checkBins(n);
        }

        /** {@code from} in units since 1970-01-01: the domain's start. */
        public double start() {
            return (double) from.toEpochSecond(ZoneOffset.UTC) / by.seconds();
        }

        /** {@code to} in units since 1970-01-01: the domain's stop. */
        public double stop() {
            return (double) to.toEpochSecond(ZoneOffset.UTC) / by.seconds();
        }

        @Override
        public String kind() {
            return "dates";
        }
    }

    /**
     * One bin per listed value, in list order; other values lie in no bin. The domain value of
     * the {@code i}-th category is {@code i + 0.5} over {@code [0, values.size())}.
     *
     * @param values the categories, distinct, at least one and at most {@link View#PIXELS}
     */
    record Categories(List<String> values) implements Bins {
        /** @throws IllegalArgumentException if the list is empty, too long or repeats a value */
        public Categories {
            values = List.copyOf(values);
            if (values.isEmpty()) {
                throw new IllegalArgumentException("values must list at least one category");
            }
            checkBins(values.size());
            Set<String> seen = new HashSet<>();
            for (String v : values) {
                if (!seen.add(v)) {
                    throw new IllegalArgumentException("values lists '" + v + "' twice");
                }
            }
        }

        @Override
        public String kind() {
            return "categories";
        }
    }

    /**
     * The {@code k} most frequent values of the column, decided when the table is loaded (see
     * {@link Views#resolve}); until then a view with these bins has no domain.
     *
     * @param k how many categories, in {@code [1, PIXELS]}
     */
    record TopCategories(int k) implements Bins {
        /** @throws IllegalArgumentException unless {@code 1 <= k <= PIXELS} */
        public TopCategories {
            if (k < 1) {
                throw new IllegalArgumentException("top must be >= 1, was " + k);
            }
            checkBins(k);
        }

        @Override
        public String kind() {
            return "categories";
        }
    }

    private static void checkBins(long n) {
        if (n > View.PIXELS) {
            throw new IllegalArgumentException(n + " bins do not fit the " + View.PIXELS
                    + "-pixel brush axis (at most one bin per pixel)");
        }
    }

    /** A number as a views file or SQL writes it: integral values without a fraction. */
    static String text(double x) {
        if (x == Math.rint(x) && Math.abs(x) < 1e15) {
            return Long.toString((long) x);
        }
        return java.math.BigDecimal.valueOf(x).toPlainString();
    }
}
