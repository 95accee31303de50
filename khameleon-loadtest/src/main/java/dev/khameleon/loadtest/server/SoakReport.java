package dev.khameleon.loadtest.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The soak benchmark's results and their verdict against its targets: under all hostile clients the
 * healthy sessions keep at least {@link #MIN_THROUGHPUT_RATIO} of their unloaded throughput and a
 * p99 state → first-block delay of at most {@link #MAX_P99_SLOTS} slots, heap and direct memory stay
 * under the given bounds, and no error escapes to an uncaught-exception handler. Pure: no I/O.
 *
 * @param baseline        the healthy sessions alone
 * @param loaded          the healthy sessions with the hostile clients, or {@code null} if none ran
 * @param hostile         what each kind of hostile client saw in the loaded phase
 * @param serverErrors    sessions the server closed with each error code during the loaded phase
 * @param handshakesRefused connections the server refused before a session during the loaded phase
 * @param heapBoundBytes  the bound on heap used after GC in the loaded phase
 * @param directBoundBytes the bound on direct memory in the loaded phase
 */
record SoakReport(Phase baseline, Phase loaded, Map<HostileKind, HostileCounts> hostile,
                  SortedMap<String, Long> serverErrors, long handshakesRefused,
                  long heapBoundBytes, long directBoundBytes) {
    static final double MIN_THROUGHPUT_RATIO = 0.9;
    static final double MAX_P99_SLOTS = 2;

    /**
     * One measured phase.
     *
     * @param name           "unloaded" or "loaded"
     * @param sessions       healthy sessions
     * @param seconds        measured wall time
     * @param bytes          bytes the healthy clients received in it
     * @param rate           each healthy session's pace, bytes/s
     * @param statesTimed    states whose first block arrived
     * @param missed         states replaced before any block of theirs arrived
     * @param p50Nanos       median state → first-block delay
     * @param p99Nanos       99th percentile of it
     * @param serverCores    CPU the server's threads used, in cores
     * @param clientCores    CPU the healthy clients' threads used, in cores
     * @param hostileCores   CPU the hostile clients' threads used, in cores
     * @param healthyClosed  healthy sessions closed by the end of the phase
     * @param heapBytes      heap used after a GC at the end of the phase
     * @param directBytes    the JDK's "direct" buffer pool at the end of the phase
     * @param nettyDirectBytes Netty's count of direct memory, or -1 when Netty does not count it
     * @param escapedErrors  {@link Error}s that reached the uncaught-exception handler so far
     * @param escapedOthers  other throwables that reached it so far
     */
    record Phase(String name, int sessions, double seconds, long bytes, double rate, long statesTimed,
                 long missed, long p50Nanos, long p99Nanos, double serverCores, double clientCores, double hostileCores, long healthyClosed, long heapBytes,
                 long directBytes, long nettyDirectBytes, long escapedErrors, long escapedOthers) {
        /** Received MB/s per healthy session. */
        double mbPerSession() {
            return bytes / seconds / sessions / 1e6;
        }

        /** One block frame's time at the pace, milliseconds. */
        double slotMillis() {
            return LoadApp.FRAME_BYTES / rate * 1e3;
        }

        double p99Slots() {
            return p99Nanos / 1e6 / slotMillis();
        }

        /** The larger of the two direct-memory counts. */
        long direct() {
            return Math.max(directBytes, nettyDirectBytes);
        }
    }

    /** One target: what it asks, what was measured, and whether it was met. */
    record Target(String name, String measured, boolean met) {
    }

    SoakReport {
        hostile = Map.copyOf(hostile);
        serverErrors = new TreeMap<>(serverErrors);
    }

    /** Loaded over unloaded throughput per session; NaN without a loaded phase or unloaded bytes. */
    double throughputRatio() {
        if (loaded == null || baseline.bytes() == 0) {
            return Double.NaN;
        }
        return loaded.mbPerSession() / baseline.mbPerSession();
    }

    /** The targets, judged on the loaded phase (on the baseline when no hostile client ran). */
    List<Target> targets() {
        Phase p = loaded == null ? baseline : loaded;
        double ratio = throughputRatio();
        List<Target> out = new ArrayList<>();
        out.add(new Target("healthy throughput ≥ 90 % of unloaded",
                Double.isNaN(ratio) ? "no loaded phase" : pct(ratio), !Double.isNaN(ratio) && ratio >= MIN_THROUGHPUT_RATIO));
        out.add(new Target("p99 state → first block ≤ 2 slots",
                String.format(Locale.ROOT, "%.2f slots (%.1f ms, slot %.1f ms)", p.p99Slots(), p.p99Nanos() / 1e6,
                        p.slotMillis()), p.statesTimed() > 0 && p.p99Slots() <= MAX_P99_SLOTS));
        out.add(new Target("heap after GC ≤ " + mb(heapBoundBytes) + " MB", mb(p.heapBytes()) + " MB",
                p.heapBytes() <= heapBoundBytes));
        out.add(new Target("direct memory ≤ " + mb(directBoundBytes) + " MB", mb(p.direct()) + " MB",
                p.direct() <= directBoundBytes));
        out.add(new Target("no Error escapes", p.escapedErrors() + " errors, " + p.escapedOthers() + " other throwables",
                p.escapedErrors() == 0));
        out.add(new Target("healthy sessions stay open", p.healthyClosed() + " closed", p.healthyClosed() == 0));
        return out;
    }

    /** The report as Markdown tables: phases, hostile clients, targets. */
    String markdown() {
        StringBuilder s = new StringBuilder();
        s.append("| phase | healthy sessions | pace KB/s | MB/s per session | vs unloaded | states timed | not reflected"
                + " | p50 ms | p99 ms | p99 slots | CPU cores: server / healthy clients / hostile clients | healthy closed"
                + " | heap MB after GC | direct MB (JDK / Netty) | uncaught errors |\n");
        s.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Phase p : loaded == null ? List.of(baseline) : List.of(baseline, loaded)) {
            s.append(String.format(Locale.ROOT, "| %s | %d | %.0f | %.4f | %s | %d | %d | %.1f | %.1f | %.2f | %.2f / %.2f / %.2f | %d | %s | %s / %s | %d |%n",
                    p.name(), p.sessions(), p.rate() / 1e3, p.mbPerSession(),
                    p == baseline ? "100 %" : pct(throughputRatio()), p.statesTimed(), p.missed(),
                    p.p50Nanos() / 1e6, p.p99Nanos() / 1e6, p.p99Slots(), p.serverCores(), p.clientCores(), p.hostileCores(), p.healthyClosed(), mb(p.heapBytes()),
                    mb(p.directBytes()), p.nettyDirectBytes() < 0 ? "n/a" : mb(p.nettyDirectBytes()),
                    p.escapedErrors() + p.escapedOthers()));
        }
        if (!hostile.isEmpty()) {
            s.append("\n| hostile kind | clients | upgraded | refused before upgrade | dropped (no close read) | server answered |\n");
            s.append("|---|---:|---:|---:|---:|---|\n");
            for (HostileKind k : new TreeMap<>(hostile).keySet()) {
                HostileCounts c = hostile.get(k);
                s.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %s |%n", k.option, k.clients,
                        c.connections(), c.refused(), c.dropped(), c.outcomesText()));
            }
            s.append("\nServer side in the loaded phase: sessions closed by error code ")
                    .append(new HostileCounts(0, 0, 0, serverErrors).outcomesText())
                    .append("; connections refused before a session: ").append(handshakesRefused).append(".\n");
        }
        s.append("\n| target | measured | met |\n|---|---|---|\n");
        for (Target t : targets()) {
            s.append("| ").append(t.name()).append(" | ").append(t.measured()).append(" | ")
                    .append(t.met() ? "yes" : "**no**").append(" |\n");
        }
        return s.toString();
    }

    /** {@code after − before} per key, keys with no change left out. */
    static SortedMap<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        SortedMap<String, Long> out = new TreeMap<>();
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d != 0) {
                out.put(k, d);
            }
        });
        return out;
    }

    private static String pct(double ratio) {
        return String.format(Locale.ROOT, "%.1f %%", ratio * 100);
    }

    private static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1e6);
    }
}
