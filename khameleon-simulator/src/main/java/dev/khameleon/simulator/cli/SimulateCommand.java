package dev.khameleon.simulator.cli;

import dev.khameleon.simulator.RequestMode;
import dev.khameleon.simulator.Runner;
import dev.khameleon.simulator.SimConfig;
import dev.khameleon.simulator.Simulator;
import dev.khameleon.simulator.SystemRegistry;
import dev.khameleon.simulator.report.CsvReporter;
import dev.khameleon.simulator.report.PhaseReporter;
import dev.khameleon.simulator.report.TableReporter;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.simulator.trace.TraceOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code simulate}: replays traces against systems under one network/cache setting, prints a
 * table and writes {@code DIR/results.csv}.
 */
@Command(name = "simulate", mixinStandardHelpOptions = true,
        description = "Replay pointer traces against systems; print a table and write DIR/results.csv.")
public final class SimulateCommand implements Callable<Integer> {

    @Mixin
    TraceOptions traceOptions;

    @Option(names = "--systems", defaultValue = "khameleon,baseline", split = ",",
            description = "Systems to run (default ${DEFAULT-VALUE}): khameleon, oracle, uniform, predictor-only, baseline, progressive, acc-0.8-1, acc-1-1, acc-1-5, ideal-sender; 'khameleon-simulator systems' lists every one, the research probes too.")
    List<String> systems;

    @Mixin
    SimOptions simOptions;

    @Option(names = "--threads", defaultValue = "1", description = "Runs in parallel (default ${DEFAULT-VALUE}); output does not depend on it.")
    int threads;

    @Option(names = "--latency-by-phase",
            description = "Also print the latency split by the pointer's phase at each request (stroke onset, "
                    + "mid-stroke, approach, landing, rest) and write DIR/latency_by_phase.csv.")
    boolean latencyByPhase;

    @Option(names = "--out", required = true, description = "Output directory for results.csv.")
    Path out;

    @Override
    public Integer call() {
        for (String s : systems) {
            SystemRegistry.check(s);
        }
        List<SimConfig> configs = simOptions.configs();
        checkThreads(threads);
        List<PointerTrace> loaded = traceOptions.load();
        List<Runner.Job> jobs = new ArrayList<>();
        for (SimConfig config : configs) {
            for (PointerTrace t : loaded) {
                for (String s : systems) {
                    jobs.add(new Runner.Job(config, t, s));
                }
            }
        }
        List<Simulator.Result> results = Runner.runAll(jobs, threads, System.err, System.console() != null);
        printAndWrite(results, out);
        if (latencyByPhase) {
            System.out.print(PhaseReporter.text(results));
            write(out.resolve("latency_by_phase.csv"), PhaseReporter.csv(results));
            System.err.println("wrote " + out.resolve("latency_by_phase.csv"));
        }
        return 0;
    }

    /** Refuses a {@code --threads} below 1, naming the option. */
    static void checkThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("--threads must be >= 1, was " + threads);
        }
    }

    /** The distinct modes named in {@code names}, in order; rejects unknown names. */
    static List<RequestMode> parseModes(List<String> names) {
        List<RequestMode> modes = new ArrayList<>();
        for (String n : names) {
            RequestMode m = RequestMode.parse(n.trim());
            if (!modes.contains(m)) {
                modes.add(m);
            }
        }
        return modes;
    }

    /**
     * Prints {@code results} as a table on standard output and writes them to
     * {@code out/results.csv}, saying so on standard error; {@code live} reports the same way.
     *
     * @throws UncheckedIOException naming the file if it cannot be written
     */
    public static void printAndWrite(List<Simulator.Result> results, Path out) {
        System.out.print(TableReporter.text(results));
        write(out.resolve("results.csv"), CsvReporter.csv(results));
        System.err.println("wrote " + out.resolve("results.csv"));
    }

    /**
     * Writes {@code content} to {@code file} in UTF-8, creating its directory.
     *
     * @throws UncheckedIOException naming the file if it cannot be written
     */
    public static void write(Path file, String content) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, content, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
