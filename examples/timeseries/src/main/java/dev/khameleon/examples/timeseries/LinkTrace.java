package dev.khameleon.examples.timeseries;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A recorded cellular link as a time series: packets the link could deliver per bin, read from a
 * Mahimahi trace (one line per 1500-byte delivery opportunity, the millisecond since the trace
 * started; repeated values mean several packets in that millisecond). The array is shared, not
 * copied: read it only.
 */
record LinkTrace(int binMillis, int[] packetsPerBin) {
    /** Longest trace read, in milliseconds (one day): bounds the memory a trace file can take. */
    static final long MAX_MILLIS = 86_400_000L;

    /**
     * Reads {@code file} into bins of {@code binMillis}; the last, partial bin is dropped.
     *
     * @throws IOException if the file cannot be read
     * @throws IllegalArgumentException naming the file and line if a line is not a millisecond in
     *     [0, {@link #MAX_MILLIS}] at or after the previous one
     */
    static LinkTrace read(Path file, int binMillis) throws IOException {
        if (binMillis < 1 || binMillis > 60_000) {
            throw new IllegalArgumentException("binMillis must be in [1, 60000], was " + binMillis);
        }
        int[] bins = new int[1024];
        long last = 0;
        int lineNumber = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            for (String line; (line = in.readLine()) != null; ) {
                lineNumber++;
                long ms;
                try {
                    ms = Long.parseLong(line.strip());
                } catch (NumberFormatException e) {
                    ms = -1;
                }
                if (ms < last || ms > MAX_MILLIS) {
                    throw new IllegalArgumentException(file + ":" + lineNumber + ": expected a millisecond in ["
                            + last + ", " + MAX_MILLIS + "], got '" + line + "'");
                }
                last = ms;
                int bin = (int) (ms / binMillis);
                if (bin >= bins.length) {
                    bins = Arrays.copyOf(bins, Math.max(bins.length * 2, bin + 1));
                }
                bins[bin]++;
            }
        }
        // The bin holding the last delivery is partial: the trace ends inside it.
        return new LinkTrace(binMillis, Arrays.copyOf(bins, (int) (last / binMillis)));
    }

    /** The trace cut into consecutive windows of {@code points} bins; a partial last window is dropped. */
    List<int[]> windows(int points) {
        List<int[]> windows = new ArrayList<>();
        for (int start = 0; start + points <= packetsPerBin.length; start += points) {
            windows.add(Arrays.copyOfRange(packetsPerBin, start, start + points));
        }
        return windows;
    }
}
