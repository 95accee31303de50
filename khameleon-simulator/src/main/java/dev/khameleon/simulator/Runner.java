package dev.khameleon.simulator;

import dev.khameleon.simulator.trace.PointerTrace;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a list of (configuration, trace, system) jobs, optionally on several threads, and
 * returns the results in job order, so the output does not depend on the thread count.
 * Reports progress as a bar on a terminal or as one log line per run otherwise.
 */
public final class Runner {
    /** One run to do. */
    public record Job(SimConfig config, PointerTrace trace, String system) {
    }

    private Runner() {
    }

    /**
     * Runs every job.
     *
     * @param threads  runs in parallel, {@code >= 1}
     * @param progress where progress goes (e.g. {@code System.err})
     * @param terminal draw a progress bar instead of log lines
     * @throws IllegalStateException if a run fails; the message names the job
     */
    public static List<Simulator.Result> runAll(List<Job> jobs, int threads, PrintStream progress, boolean terminal) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be >= 1, was " + threads);
        }
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "khameleon-sim");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Simulator.Result>> futures = new ArrayList<>();
            for (Job job : jobs) {
                futures.add(pool.submit(() -> Simulator.run(job.config(), job.trace(), job.system())));
            }
            List<Simulator.Result> results = new ArrayList<>();
            long start = System.nanoTime();
            for (int i = 0; i < futures.size(); i++) {
                Job job = jobs.get(i);
                try {
                    results.add(futures.get(i).get());
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof IllegalArgumentException bad) {
                        // A setting the system cannot run with: the user's to fix, one line (see Cli).
                        throw new IllegalArgumentException(bad.getMessage(), bad);
                    }
                    throw new IllegalStateException("run " + job.system() + " on " + job.trace().name() + " ("
                            + job.config() + ") failed: " + e.getCause(), e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
                report(progress, terminal, i + 1, jobs.size(), job, (System.nanoTime() - start) / 1e9);
            }
            if (terminal) {
                progress.println();
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }

    private static void report(PrintStream out, boolean terminal, int done, int total, Job job, double seconds) {
        if (terminal) {
            int width = 30;
            int filled = (int) ((long) width * done / total);
            out.printf("\r[%s%s] %d/%d runs, %.0f s", "#".repeat(filled), " ".repeat(width - filled), done, total,
                    seconds);
            out.flush();
        } else {
            out.printf("run %d/%d done: %s on %s (%.0f s elapsed)%n", done, total, job.system(), job.trace().name(),
                    seconds);
        }
    }
}
