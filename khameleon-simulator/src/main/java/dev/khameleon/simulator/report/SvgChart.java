package dev.khameleon.simulator.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders small-multiple line charts as standalone SVG, in the layout of the paper's figures:
 * a grid of panels (one metric per row, one condition per column), one line per system, a
 * shared legend. Written by hand rather than with a charting library so the output is plain
 * text that is byte-for-byte reproducible. Stateless and thread-safe.
 */
public final class SvgChart {
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"};
    private static final int PANEL_W = 240;
    private static final int PANEL_H = 170;
    private static final int MARGIN_L = 58;
    private static final int MARGIN_T = 28;
    private static final int GAP_X = 30;
    private static final int GAP_Y = 58;

    private SvgChart() {
    }

    private static final String[] DASHES = {"", "6,3", "2,2", "8,3,2,3"};

    /**
     * One line: y over x; NaN points are skipped. Lines with the same {@code colorKey} share a
     * color; {@code dash} picks a dash pattern (0 solid, then dashed, dotted, dash-dot, cycling).
     *
     * @param name     shown in the legend
     * @param x        x values
     * @param y        y values
     * @param colorKey lines with equal keys get the same color
     * @param dash     dash pattern index, {@code >= 0}
     */
    public record Series(String name, double[] x, double[] y, String colorKey, int dash) {
        /** A solid line colored by its name. */
        public Series(String name, double[] x, double[] y) {
            this(name, x, y, name, 0);
        }
    }

    /**
     * One panel.
     *
     * @param title  shown above the panel
     * @param xLabel shown below it
     * @param logX   log-scale x axis
     * @param logY   log-scale y axis
     * @param series the lines
     */
    public record Panel(String title, String xLabel, boolean logX, boolean logY, List<Series> series) {
    }

    /** The SVG document of {@code panels} laid out {@code columns} per row under {@code title}. */
    public static String render(String title, int columns, List<Panel> panels) {
        int rows = (panels.size() + columns - 1) / columns;
        Map<String, String> colors = new LinkedHashMap<>();
        Map<String, Series> legend = new LinkedHashMap<>();
        for (Panel p : panels) {
            for (Series s : p.series()) {
                colors.computeIfAbsent(s.colorKey(), k -> COLORS[colors.size() % COLORS.length]);
                legend.putIfAbsent(s.name(), s);
            }
        }
        int width = MARGIN_L + columns * (PANEL_W + GAP_X) + 10;
        // Legend entries wrap onto as many rows as the width needs.
        int legendRows = 1;
        double probe = MARGIN_L;
        for (String name : legend.keySet()) {
            double w = 30 + 7 * name.length();
            if (probe + w > width && probe > MARGIN_L) {
                legendRows++;
                probe = MARGIN_L;
            }
            probe += w;
        }
        int legendH = 20 * legendRows + 4;
        int height = MARGIN_T + rows * (PANEL_H + GAP_Y) + legendH + 10;
        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(width).append("\" height=\"")
                .append(height).append("\" font-family=\"sans-serif\" font-size=\"11\">\n");
        sb.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        sb.append(text(width / 2.0, 16, esc(title), "middle", 13));
        for (int i = 0; i < panels.size(); i++) {
            int px = MARGIN_L + (i % columns) * (PANEL_W + GAP_X);
            int py = MARGIN_T + (i / columns) * (PANEL_H + GAP_Y) + 14;
            panel(sb, panels.get(i), px, py, colors);
        }
        double lx = MARGIN_L;
        double ly = height - legendH + 4;
        for (Series s : legend.values()) {
            double w = 30 + 7 * s.name().length();
            if (lx + w > width && lx > MARGIN_L) {
                lx = MARGIN_L;
                ly += 20;
            }
            sb.append("<line x1=\"").append(f(lx)).append("\" y1=\"").append(f(ly)).append("\" x2=\"")
                    .append(f(lx + 18)).append("\" y2=\"").append(f(ly)).append("\" stroke=\"")
                    .append(colors.get(s.colorKey())).append("\" stroke-width=\"2\"").append(dash(s)).append("/>\n");
            sb.append(text(lx + 22, ly + 4, esc(s.name()), "start", 11));
            lx += w;
        }
        sb.append("</svg>\n");
        return sb.toString();
    }

    private static void panel(StringBuilder sb, Panel p, int px, int py, Map<String, String> colors) {
        double xmin = Double.POSITIVE_INFINITY;
        double xmax = Double.NEGATIVE_INFINITY;
        double ymin = Double.POSITIVE_INFINITY;
        double ymax = Double.NEGATIVE_INFINITY;
        for (Series s : p.series()) {
            for (int k = 0; k < s.x().length; k++) {
                double x = s.x()[k];
                double y = s.y()[k];
                if (!usable(x, p.logX()) || !usable(y, p.logY())) {
                    continue;
                }
                xmin = Math.min(xmin, x);
                xmax = Math.max(xmax, x);
                ymin = Math.min(ymin, y);
                ymax = Math.max(ymax, y);
            }
        }
        sb.append(text(px + PANEL_W / 2.0, py - 6, esc(p.title()), "middle", 11));
        sb.append("<rect x=\"").append(px).append("\" y=\"").append(py).append("\" width=\"").append(PANEL_W)
                .append("\" height=\"").append(PANEL_H).append("\" fill=\"none\" stroke=\"#999\"/>\n");
        sb.append(text(px + PANEL_W / 2.0, py + PANEL_H + 30, esc(p.xLabel()), "middle", 10));
        if (xmin > xmax) {
            sb.append(text(px + PANEL_W / 2.0, py + PANEL_H / 2.0, "no data", "middle", 10));
            return;
        }
        if (!p.logY()) {
            ymin = Math.min(ymin, 0);
        }
        double[] xr = range(xmin, xmax, p.logX());
        double[] yr = range(ymin, ymax, p.logY());
        for (double t : ticks(yr, p.logY())) {
            double y = py + PANEL_H - scale(t, yr, p.logY()) * PANEL_H;
            sb.append("<line x1=\"").append(px).append("\" y1=\"").append(f(y)).append("\" x2=\"").append(px + PANEL_W)
                    .append("\" y2=\"").append(f(y)).append("\" stroke=\"#eee\"/>\n");
            sb.append(text(px - 4, y + 4, label(t), "end", 10));
        }
        for (double t : ticks(xr, p.logX())) {
            double x = px + scale(t, xr, p.logX()) * PANEL_W;
            sb.append(text(x, py + PANEL_H + 14, label(t), "middle", 10));
        }
        for (Series s : p.series()) {
            String color = colors.get(s.colorKey());
            List<String> pts = new ArrayList<>();
            for (int k = 0; k < s.x().length; k++) {
                if (!usable(s.x()[k], p.logX()) || !usable(s.y()[k], p.logY())) {
                    continue;
                }
                double x = px + scale(s.x()[k], xr, p.logX()) * PANEL_W;
                double y = py + PANEL_H - scale(s.y()[k], yr, p.logY()) * PANEL_H;
                pts.add(f(x) + "," + f(y));
                sb.append("<circle cx=\"").append(f(x)).append("\" cy=\"").append(f(y)).append("\" r=\"2.5\" fill=\"")
                        .append(color).append("\"/>\n");
            }
            if (pts.size() > 1) {
                sb.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"1.5\"")
                        .append(dash(s)).append(" points=\"").append(String.join(" ", pts)).append("\"/>\n");
            }
        }
    }

    private static String dash(Series s) {
        String d = DASHES[Math.floorMod(s.dash(), DASHES.length)];
        return d.isEmpty() ? "" : " stroke-dasharray=\"" + d + "\"";
    }

    private static boolean usable(double v, boolean log) {
        return Double.isFinite(v) && (!log || v > 0);
    }

    private static double[] range(double min, double max, boolean log) {
        if (log) {
            double lo = Math.pow(10, Math.floor(Math.log10(min)));
            double hi = Math.pow(10, Math.ceil(Math.log10(max)));
            return new double[] {lo, hi > lo ? hi : lo * 10};
        }
        if (max <= min) {
            return new double[] {min - 0.5, min + 0.5};
        }
        double pad = (max - min) * 0.05;
        return new double[] {min == 0 ? 0 : min - pad, max + pad};
    }

    private static double scale(double v, double[] r, boolean log) {
        if (log) {
            return (Math.log10(v) - Math.log10(r[0])) / (Math.log10(r[1]) - Math.log10(r[0]));
        }
        return (v - r[0]) / (r[1] - r[0]);
    }

    private static List<Double> ticks(double[] r, boolean log) {
        List<Double> out = new ArrayList<>();
        if (log) {
            for (double t = r[0]; t <= r[1] * 1.0001; t *= 10) {
                out.add(t);
            }
            return out;
        }
        double span = r[1] - r[0];
        double step = Math.pow(10, Math.floor(Math.log10(span / 4)));
        if (span / step > 8) {
            step *= 2;
        }
        if (span / step > 8) {
            step *= 2.5;
        }
        for (double t = Math.ceil(r[0] / step) * step; t <= r[1] + 1e-12; t += step) {
            out.add(Math.abs(t) < 1e-12 ? 0.0 : t);
        }
        return out;
    }

    private static String label(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e7) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    private static String text(double x, double y, String s, String anchor, int size) {
        return "<text x=\"" + f(x) + "\" y=\"" + f(y) + "\" text-anchor=\"" + anchor + "\" font-size=\"" + size + "\">"
                + s + "</text>\n";
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
