package dev.khameleon.examples.crossfilter;

import java.util.Arrays;

/**
 * The brushes set on the views: for each view either no brush or a pixel range
 * {@code [from, to)} with {@code from < to}. Immutable; equal filters are equal keys.
 *
 * <p>An empty brush ({@code from == to}, the moment a user starts dragging) filters nothing, as
 * in the benchmark's interface, so it is stored as no brush.
 */
public final class Filters {
    private final Views views;
    private final int[] from;
    private final int[] to;

    private Filters(Views views, int[] from, int[] to) {
        this.views = views;
        this.from = from;
        this.to = to;
    }

    /** No brush on any view of {@code views}. */
    public static Filters none(Views views) {
        int[] none = new int[views.size()];
        Arrays.fill(none, -1);
        return new Filters(views, none, none.clone());
    }

    /** The views these brushes are on. */
    public Views views() {
        return views;
    }

    /**
     * These filters with view {@code view}'s brush set to {@code [from, to)}; an empty range
     * removes it.
     *
     * @throws IllegalArgumentException unless {@code 0 <= from <= to <= View.PIXELS}, or if
     *     {@code view} is not one of {@link #views()}
     */
    public Filters with(View view, int from, int to) {
        check(view);
        if (from < 0 || from > to || to > View.PIXELS) {
            throw new IllegalArgumentException("brush on " + view + " must satisfy 0 <= from <= to <= "
                    + View.PIXELS + ", was [" + from + ", " + to + ")");
        }
        if (from == to) {
            return without(view);
        }
        int[] f = this.from.clone();
        int[] t = this.to.clone();
        f[view.index()] = from;
        t[view.index()] = to;
        return new Filters(views, f, t);
    }

    /** These filters without a brush on {@code view}. */
    public Filters without(View view) {
        check(view);
        if (!isSet(view)) {
            return this;
        }
        int[] f = from.clone();
        int[] t = to.clone();
        f[view.index()] = -1;
        t[view.index()] = -1;
        return new Filters(views, f, t);
    }

    private void check(View view) {
        if (view.views() != views) {
            throw new IllegalArgumentException("view " + view + " of " + view.views() + " is not one of " + views);
        }
    }

    /** Whether no view has a brush (the unfiltered state). */
    public boolean isEmpty() {
        for (int f : from) {
            if (f >= 0) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code view} has a (non-empty) brush; false for a view of other {@link Views}. */
    public boolean isSet(View view) {
        return view.views() == views && from[view.index()] >= 0;
    }

    /** First pixel of {@code view}'s brush, or -1 when it has none. */
    public int from(View view) {
        check(view);
        return from[view.index()];
    }

    /** Pixel after the last of {@code view}'s brush, or -1 when it has none. */
    public int to(View view) {
        check(view);
        return to[view.index()];
    }

    /** Whether a row with these per-view values passes every brush except those of {@code skipA} and {@code skipB}. */
    boolean accepts(double[] values, View skipA, View skipB) {
        for (View v : views) {
            if (v == skipA || v == skipB || !isSet(v)) {
                continue;
            }
            double x = values[v.index()];
            int p = v.pixelOf(x);
            if (Double.isNaN(x) || p < from(v) || p >= to(v)) {
                return false;
            }
        }
        return true;
    }

    /** SQL conjunction of every brush except those of {@code skipA} and {@code skipB}; "TRUE" when none. */
    String sqlExcept(View skipA, View skipB) {
        StringBuilder sb = new StringBuilder();
        for (View v : views) {
            if (v == skipA || v == skipB || !isSet(v)) {
                continue;
            }
            if (sb.length() > 0) {
                sb.append(" AND ");
            }
            sb.append(v.pixelColumn()).append(" >= ").append(from(v))
                    .append(" AND ").append(v.pixelColumn()).append(" < ").append(to(v));
        }
        return sb.length() == 0 ? "TRUE" : sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Filters other && other.views == views && Arrays.equals(from, other.from) && Arrays.equals(to, other.to);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(from) + Arrays.hashCode(to);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Filters[");
        for (View v : views) {
            if (isSet(v)) {
                sb.append(sb.length() > 8 ? ", " : "").append(v).append('[').append(from(v)).append(',')
                        .append(to(v)).append(')');
            }
        }
        return sb.append(']').toString();
    }
}
