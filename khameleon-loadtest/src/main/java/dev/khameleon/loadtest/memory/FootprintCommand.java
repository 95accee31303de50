package dev.khameleon.loadtest.memory;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.core.spi.Scheduler;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code khameleon-loadtest footprint}: the heap one session's scheduler holds, as the server builds
 * it (core's greedy scheduler), for an application of {@code --requests} and a cache of
 * {@code --cache-blocks}. It builds {@code --sessions} schedulers in this JVM, measures the heap after
 * a forced collection, plans one full batch on each and measures again, and prints
 * {@code scheduler_bytes_per_session=<int>} (as built) and
 * {@code scheduler_bytes_per_session_after_batch=<int>}. Run it in a JVM of its own with room for
 * them all ({@code -Xmx}).
 */
@Command(name = "footprint", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"The heap one session's scheduler holds, measured over many sessions in this JVM.",
                "Prints scheduler_bytes_per_session=<int> as built and after one full batch is planned, and with",
                "--batches K the most after any of K batches."})
public final class FootprintCommand implements Callable<Integer> {
    /** The largest {@code --sessions}: they all live in this JVM at once. */
    static final int MAX_SESSIONS = 10_000;

    @Option(names = "--requests", paramLabel = "N", description = "The application's request count n, in [1, 10^8]; "
            + "default ${DEFAULT-VALUE}")
    int requests = 1_000_000;

    @Option(names = "--cache-blocks", paramLabel = "C", description = "Each session's cache in blocks, in [1, 10^7]; "
            + "default ${DEFAULT-VALUE}")
    int cacheBlocks = 5000;

    @Option(names = "--sessions", paramLabel = "S", description = "Schedulers built and measured together, in [1, "
            + MAX_SESSIONS + "]; default ${DEFAULT-VALUE}")
    int sessions = 100;

    @Option(names = "--blocks-per-request", paramLabel = "B", description = "Blocks of each response, in [1, 10^4]; "
            + "default ${DEFAULT-VALUE}")
    int blocksPerRequest = 50;

    @Option(names = "--batches", paramLabel = "K", description = "Full batches of C slots planned, each measured, in "
            + "[1, 10^4]; default ${DEFAULT-VALUE}")
    int batches = 1;

    @Spec
    CommandSpec spec;

    /**
     * Checks every option.
     *
     * @throws IllegalArgumentException naming the option and its bad value
     */
    void validate() {
        check("--requests", requests, 1, 100_000_000);
        check("--cache-blocks", cacheBlocks, 1, 10_000_000);
        check("--sessions", sessions, 1, MAX_SESSIONS);
        check("--blocks-per-request", blocksPerRequest, 1, 10_000);
        check("--batches", batches, 1, 10_000);
    }

    private static void check(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " " + value + ": outside [" + min + ", " + max + "]");
        }
    }

    @Override
    public Integer call() {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        long[] horizons = Horizons.defaults().toArray();
        Distribution d = Distribution.uniform(requests, horizons);
        long base = heapAfterGc();
        List<Scheduler> built = new ArrayList<>(sessions);
        for (int s = 0; s < sessions; s++) {
            built.add(Schedulers.greedy(SchedulerConfig.builder().cacheBlocks(cacheBlocks).requestCount(requests)
                    .blocksPerRequest(blocksPerRequest).seed(s).build()));
        }
        long created = heapAfterGc();
        for (Scheduler s : built) {
            s.replan(d, 0, 1.0);
        }
        long first = 0;
        long most = 0;
        for (int b = 0; b < batches; b++) {
            for (Scheduler s : built) {
                planBatch(s);
            }
            long planned = heapAfterGc();
            first = b == 0 ? planned : first;
            most = Math.max(most, planned);
        }
        out.println("scheduler_bytes_per_session=" + Math.max(0, (created - base) / sessions));
        out.println("scheduler_bytes_per_session_after_batch=" + Math.max(0, (first - base) / sessions));
        if (batches > 1) {
            out.println("scheduler_bytes_per_session_most_over_" + batches + "_batches="
                    + Math.max(0, (most - base) / sessions));
        }
        out.flush();
        // Kept reachable until here, so the collections above cannot free them.
        return built.size() == sessions ? 0 : 1;
    }

    /** Plans the next {@code C} slots of {@code s}. */
    private void planBatch(Scheduler s) {
        int planned = 0;
        while (planned < cacheBlocks) {
            ScheduleChunk chunk = s.next(Math.min(100, cacheBlocks - planned));
            if (chunk.isEmpty()) {
                break;
            }
            planned += chunk.size();
        }
    }

    /** The heap in use after collections, once two in a row agree within 1 %. */
    private static long heapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long previous = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            long used = memory.getHeapMemoryUsage().getUsed();
            if (Math.abs(previous - used) <= previous / 100) {
                return used;
            }
            previous = used;
        }
        return previous;
    }
}
