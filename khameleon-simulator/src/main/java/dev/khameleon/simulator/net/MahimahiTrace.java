package dev.khameleon.simulator.net;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A Mahimahi packet-delivery trace: one integer per line, the millisecond (from the start of
 * the trace) at which one {@value #PACKET_BYTES}-byte packet may be delivered; a repeated value
 * means several packets in that millisecond. The trace loops with a period equal to its last
 * timestamp (Mahimahi's convention).
 *
 * <p>Immutable and thread-safe.
 */
public final class MahimahiTrace {
    /** The bytes one delivery opportunity carries. */
    public static final int PACKET_BYTES = 1500;

    private final String name;
    private final long[] opportunitiesMillis;

    private MahimahiTrace(String name, long[] opportunitiesMillis) {
        this.name = name;
        this.opportunitiesMillis = opportunitiesMillis;
    }

    /**
     * A trace from delivery times in ms.
     *
     * @throws IllegalArgumentException if empty, negative, decreasing, or the last time is 0
     *     (the loop period would be empty)
     */
    public static MahimahiTrace of(String name, long... opportunitiesMillis) {
        if (opportunitiesMillis.length == 0) {
            throw new IllegalArgumentException("Mahimahi trace " + name + " has no delivery opportunities");
        }
        for (int i = 0; i < opportunitiesMillis.length; i++) {
            if (opportunitiesMillis[i] < 0 || (i > 0 && opportunitiesMillis[i] < opportunitiesMillis[i - 1])) {
                throw new IllegalArgumentException("Mahimahi trace " + name + ": line " + (i + 1) + " ("
                        + opportunitiesMillis[i] + ") is negative or goes backwards");
            }
        }
        if (opportunitiesMillis[opportunitiesMillis.length - 1] == 0) {
            throw new IllegalArgumentException("Mahimahi trace " + name + " spans 0 ms; it cannot loop");
        }
        return new MahimahiTrace(name, opportunitiesMillis.clone());
    }

    /** Reads a trace file; blank lines are skipped. */
    public static MahimahiTrace read(Path file) {
        long[] values = new long[1 << 16];
        int n = 0;
        try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            String line;
            int lineNo = 0;
            while ((line = reader.readLine()) != null) {
                lineNo++;
                line = line.strip();
                if (line.isEmpty()) {
                    continue;
                }
                if (n == values.length) {
                    values = Arrays.copyOf(values, n * 2);
                }
                try {
                    values[n++] = Long.parseLong(line);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(file + ":" + lineNo + ": not an integer: " + line, e);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Mahimahi trace " + file, e);
        }
        return of(file.getFileName().toString(), Arrays.copyOf(values, n));
    }

    /** The file name or given name. */
    public String name() {
        return name;
    }

    /** The number of delivery opportunities in one loop. */
    public int size() {
        return opportunitiesMillis.length;
    }

    /** The loop period in ms: the last timestamp. */
    public long periodMillis() {
        return opportunitiesMillis[opportunitiesMillis.length - 1];
    }

    /** The time in ms of opportunity {@code k} counted over the looped trace ({@code k >= 0}). */
    public long opportunityMillis(long k) {
        int n = opportunitiesMillis.length;
        return opportunitiesMillis[(int) (k % n)] + (k / n) * periodMillis();
    }

    /** The index of the first opportunity at or after {@code millis} on the looped trace. */
    public long firstOpportunityAtOrAfter(long millis) {
        int n = opportunitiesMillis.length;
        long loop = millis / periodMillis();
        long within = millis - loop * periodMillis();
        // The opportunities at exactly `period` belong to the end of a loop; they are found there.
        int i = lowerBound(opportunitiesMillis, within);
        return loop * n + i;
    }

    /** The mean capacity in bytes per second over one loop. */
    public double meanBytesPerSecond() {
        return (double) opportunitiesMillis.length * PACKET_BYTES * 1000.0 / periodMillis();
    }

    private static int lowerBound(long[] a, long key) {
        int lo = 0;
        int hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Override
    public String toString() {
        return "MahimahiTrace[" + name + ", " + size() + " packets / " + periodMillis() + " ms]";
    }
}
