package dev.khameleon.simulator.live;

import dev.khameleon.simulator.SimConfig;
import dev.khameleon.simulator.Simulator;
import dev.khameleon.simulator.cli.SimOptions;
import dev.khameleon.simulator.cli.SimulateCommand;
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
 * (system, trace, request_mode). Runs one after another (each takes its trace's length); the
 * options are {@code simulate}'s ({@link SimOptions}, {@link TraceOptions}) plus the link's and
 * the run's own. Not thread-safe; picocli fills and calls it.
 */
@Command(name = "live", mixinStandardHelpOptions = true,
        description = "Replay pointer traces live: the real Khameleon server and client over a shaped link on "
                + "127.0.0.1, at the trace's pace; print a table and write DIR/results.csv (simulate's columns).")
public final class LiveCommand implements Callable<Integer> {

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
        List<Simulator.Result> results = new ArrayList<>();
        for (SimConfig config : configs) {
            for (PointerTrace trace : traces) {
                String label = "live run " + (results.size() + 1) + "/" + configs.size() * traces.size();
                results.add(LiveRun.run(config, trace, settings, System.err, label));
            }
        }
        SimulateCommand.printAndWrite(results, out);
        return 0;
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
