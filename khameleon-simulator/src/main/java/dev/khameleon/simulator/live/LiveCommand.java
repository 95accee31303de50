package dev.khameleon.simulator.live;

import dev.khameleon.simulator.SimConfig;
import dev.khameleon.simulator.Simulator;
import dev.khameleon.simulator.cli.SimOptions;
import dev.khameleon.simulator.cli.SimulateCommand;
import dev.khameleon.simulator.report.CsvReporter;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.simulator.trace.TraceOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code live}: replays pointer traces against the real Khameleon server and client over a shaped
 * link on this machine, at the traces' own pace, and writes {@code DIR/results.csv} with the
 * columns and rules of {@code simulate} (system {@code khameleon}), so the two join row by row on
 * (system, trace, request_mode), and {@code DIR/link.csv}, what each run's link carried
 * ({@value #LINK_HEADER}), in the same rows. Runs one after another (each takes its trace's
 * length); the options are {@code simulate}'s ({@link SimOptions}, {@link TraceOptions}) plus the
 * link's and the run's own. Not thread-safe; picocli fills and calls it.
 */
@Command(name = "live", mixinStandardHelpOptions = true,
        description = "Replay pointer traces live: the real Khameleon server and client over a shaped link on "
                + "127.0.0.1, at the trace's pace; print a table and write DIR/results.csv (simulate's columns) "
                + "and DIR/link.csv (what each run's link carried).")
public final class LiveCommand implements Callable<Integer> {
    /** The columns of {@code link.csv}. */
    static final String LINK_HEADER = "system,trace,request_mode,link_MBps,delivered_MB,seconds,delivered_MBps,"
            + "utilisation,max_queue_KB";

    @Mixin
    TraceOptions traceOptions;

    @Mixin
    SimOptions simOptions;

    @Option(names = "--drain-ms", defaultValue = "5000",
            description = "Longest time the run goes on after the last request, ms (default ${DEFAULT-VALUE}; "
                    + "simulate drains up to 30000). Never-answered requests count up to its end.")
    double drainMillis;

    @Option(names = "--port", defaultValue = "0",
            description = "Port of the link on 127.0.0.1 that the client connects to (default ${DEFAULT-VALUE}: any free one).")
    int port;

    @Option(names = "--pace", defaultValue = "1",
            description = "Replay speed: 1 the recorded pace (default), F > 1 F times faster. The link's rate and "
                    + "latency are NOT scaled: a faster user on the same network.")
    double pace;

    @Option(names = "--out", required = true, description = "Output directory for results.csv.")
    Path out;

    @Override
    public Integer call() {
        LiveRun.Settings settings = settings();
        List<SimConfig> configs = simOptions.configs();
        List<PointerTrace> traces = traceOptions.load();
        List<LiveRun.Outcome> outcomes = new ArrayList<>();
        for (SimConfig config : configs) {
            for (PointerTrace trace : traces) {
                String label = "live run " + (outcomes.size() + 1) + "/" + configs.size() * traces.size();
                outcomes.add(LiveRun.run(config, trace, settings, System.err, label));
            }
        }
        SimulateCommand.printAndWrite(outcomes.stream().map(LiveRun.Outcome::result).toList(), out);
        SimulateCommand.write(out.resolve("link.csv"), linkCsv(outcomes));
        System.err.println("wrote " + out.resolve("link.csv"));
        return 0;
    }

    /** {@code link.csv}: {@value #LINK_HEADER}, one row per run in {@code results.csv}'s order. */
    static String linkCsv(List<LiveRun.Outcome> outcomes) {
        StringBuilder sb = new StringBuilder(LINK_HEADER).append('\n');
        for (LiveRun.Outcome o : outcomes) {
            Simulator.Result r = o.result();
            LiveRun.Link l = o.link();
            sb.append(String.join(",", CsvReporter.escape(r.system()), CsvReporter.escape(r.trace()),
                    r.config().requestMode().label(), CsvReporter.num(l.linkBytesPerSecond() / 1e6, 3),
                    CsvReporter.num(l.deliveredBytes() / 1e6, 3), CsvReporter.num(l.seconds(), 3),
                    CsvReporter.num(l.deliveredBytesPerSecond() / 1e6, 3), CsvReporter.num(l.utilisation(), 4),
                    CsvReporter.num(l.maxQueuedBytes() / 1e3, 1))).append('\n');
        }
        return sb.toString();
    }

    /** The live run's own options, checked; each error names its option. */
    private LiveRun.Settings settings() {
        if (!(drainMillis >= 0) || Double.isInfinite(drainMillis)) {
            throw new IllegalArgumentException("--drain-ms must be finite and >= 0, was " + drainMillis);
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("--port must be in [0, 65535], was " + port);
        }
        if (!(pace > 0) || Double.isInfinite(pace)) {
            throw new IllegalArgumentException("--pace must be finite and > 0, was " + pace);
        }
        return new LiveRun.Settings(drainMillis, port, pace);
    }
}
