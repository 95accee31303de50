package dev.khameleon.simulator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SvgChartTest {
    private static final double[] X = {1, 2, 3};

    private static List<String> polylines(String svg) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("<polyline [^>]*>").matcher(svg);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    private static String stroke(String element) {
        Matcher m = Pattern.compile("stroke=\"(#[0-9a-f]{6})\"").matcher(element);
        assertTrue(m.find(), element);
        return m.group(1);
    }

    @Test
    void variantsOfOneSystem_shareAColorAndDifferInDash() {
        SvgChart.Series solid = new SvgChart.Series("khameleon (per-sample, 60hz)", X, new double[] {1, 2, 3}, "khameleon", 0);
        SvgChart.Series dashed = new SvgChart.Series("khameleon (per-visit, 60hz)", X, new double[] {2, 3, 4}, "khameleon", 1);
        SvgChart.Series other = new SvgChart.Series("baseline", X, new double[] {3, 4, 5});
        String svg = SvgChart.render("t", 1, List.of(new SvgChart.Panel("p", "x", false, false,
                List.of(solid, dashed, other))));
        List<String> lines = polylines(svg);
        assertEquals(3, lines.size());
        assertEquals(stroke(lines.get(0)), stroke(lines.get(1)), "same system, same color");
        assertTrue(!stroke(lines.get(0)).equals(stroke(lines.get(2))), "another system, another color");
        assertTrue(!lines.get(0).contains("stroke-dasharray") && lines.get(1).contains("stroke-dasharray"), svg);
    }

    @Test
    void longLegend_wrapsInsideTheChart() {
        List<SvgChart.Series> series = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            series.add(new SvgChart.Series("system-with-a-long-name-" + i, X, new double[] {i, i, i}));
        }
        String svg = SvgChart.render("t", 1, List.of(new SvgChart.Panel("p", "x", false, false, series)));
        Matcher size = Pattern.compile("width=\"(\\d+)\" height=\"(\\d+)\"").matcher(svg);
        assertTrue(size.find());
        int width = Integer.parseInt(size.group(1));
        int height = Integer.parseInt(size.group(2));
        Matcher legend = Pattern.compile("<text x=\"([0-9.]+)\" y=\"([0-9.]+)\" text-anchor=\"start\"[^>]*>([^<]*)</text>")
                .matcher(svg);
        int entries = 0;
        while (legend.find()) {
            entries++;
            double x = Double.parseDouble(legend.group(1));
            double y = Double.parseDouble(legend.group(2));
            assertTrue(x + 7 * legend.group(3).length() <= width + 1, "entry " + legend.group(3) + " past the right edge");
            assertTrue(y <= height, "entry " + legend.group(3) + " below the chart");
        }
        assertEquals(12, entries);
    }
}
