package dev.khameleon.core.testkit;

import java.util.ArrayList;
import java.util.List;

/** The line difference {@link ApiListing} reports: small, readable, and bounded in length. */
final class ApiListingDiff {
    /** Past this many cells the middle is not aligned line by line (a listing rewritten wholesale). */
    private static final long MAX_CELLS = 4_000_000;

    private ApiListingDiff() {}

    /**
     * The lines that differ, {@code -} for those only in {@code expected} and {@code +} for those only
     * in {@code actual}, each group after the type header above it (prefixed {@code @@}); at most
     * {@code max} lines, then a count of the rest.
     */
    static List<String> diff(List<String> expected, List<String> actual, int max) {
        int start = 0;
        while (start < expected.size() && start < actual.size()
                && expected.get(start).equals(actual.get(start))) {
            start++;
        }
        int endE = expected.size();
        int endA = actual.size();
        while (endE > start && endA > start && expected.get(endE - 1).equals(actual.get(endA - 1))) {
            endE--;
            endA--;
        }
        List<String> e = expected.subList(start, endE);
        List<String> a = actual.subList(start, endA);
        // Longest common subsequence of the middle; past MAX_CELLS, a greedy walk instead.
        int n = e.size();
        int m = a.size();
        int[][] lcs = (long) n * m <= MAX_CELLS ? new int[n + 1][m + 1] : new int[1][1];
        if (lcs.length > 1) {
            for (int i = n - 1; i >= 0; i--) {
                for (int j = m - 1; j >= 0; j--) {
                    lcs[i][j] = e.get(i).equals(a.get(j)) ? lcs[i + 1][j + 1] + 1
                            : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
                }
            }
        }
        List<String> out = new ArrayList<>();
        int changes = 0;
        int shown = 0;
        String context = start > 0 ? typeAbove(actual, start - 1) : null;
        boolean inRun = false;
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            boolean aligned = lcs.length > 1;
            if (i < n && j < m && e.get(i).equals(a.get(j)) && (!aligned || lcs[i][j] == lcs[i + 1][j + 1] + 1)) {
                context = isTypeHeader(e.get(i)) ? e.get(i) : context;
                i++;
                j++;
                inRun = false;
                continue;
            }
            // Removals before additions where either would do, as diff(1) prints them.
            String line = i < n && (j == m || !aligned || lcs[i + 1][j] >= lcs[i][j + 1])
                    ? "-" + e.get(i++) : "+" + a.get(j++);
            changes++;
            if (shown < max) {
                if (!inRun && context != null) {
                    out.add("@@ " + context);
                }
                out.add(line);
                shown++;
            }
            inRun = true;
        }
        if (changes > shown) {
            out.add("... and " + (changes - shown) + " more differing lines");
        }
        return out;
    }

    private static String typeAbove(List<String> lines, int index) {
        for (int k = index; k >= 0; k--) {
            if (isTypeHeader(lines.get(k))) {
                return lines.get(k);
            }
        }
        return null;
    }

    private static boolean isTypeHeader(String line) {
        return !line.isEmpty() && !line.startsWith(" ") && !line.startsWith("#");
    }
}
