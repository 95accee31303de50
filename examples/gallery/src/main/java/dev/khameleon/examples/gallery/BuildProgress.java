package dev.khameleon.examples.gallery;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How far the gallery's start has got, for the person waiting: on a terminal one line rewritten in
 * place ({@code \r}, e.g. {@code encoding pictures 37/1200 (3 %)}), at most ten times a second; elsewhere
 * (CI, a log file) plain lines, one per tenth of the work, so a log is neither silent nor flooded.
 *
 * <p>{@link Task#step()} may be called from any thread; the lines are written under a lock.
 */
public final class BuildProgress {
    private static final long TERMINAL_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final BuildProgress SILENT = new BuildProgress(null, false, System::nanoTime);

    private final PrintWriter out;
    private final boolean terminal;
    private final LongSupplier nanoClock;

    private BuildProgress(PrintWriter out, boolean terminal, LongSupplier nanoClock) {
        this.out = out;
        this.terminal = terminal;
        this.nanoClock = nanoClock;
    }

    /** Reports nothing (what {@link GalleryServer.Builder} uses unless told otherwise). */
    public static BuildProgress silent() {
        return SILENT;
    }

    /**
     * Reports to {@code out}, as on a terminal if {@code terminal} (one line updated in place) or as
     * plain lines if not.
     */
    public static BuildProgress to(PrintWriter out, boolean terminal) {
        return new BuildProgress(out, terminal, System::nanoTime);
    }

    /** As {@link #to}, with an injected clock (nanoseconds) for tests. */
    static BuildProgress to(PrintWriter out, boolean terminal, LongSupplier nanoClock) {
        return new BuildProgress(out, terminal, nanoClock);
    }

    /** Reports to {@code out}, as on a terminal when this JVM has one ({@code System.console() != null}). */
    public static BuildProgress toConsole(PrintWriter out) {
        return to(out, System.console() != null);
    }

    /** Writes one line of its own, e.g. what was loaded instead of built. */
    public void line(String text) {
        if (out == null) {
            return;
        }
        synchronized (this) {
            out.println(text);
            out.flush();
        }
    }

    /** Starts reporting a piece of work of {@code total} steps, described by {@code what} (e.g. {@code encoding pictures}). */
    public Task start(String what, int total) {
        if (total < 1) {
            throw new IllegalArgumentException("total must be >= 1, was " + total);
        }
        return new Task(what, total);
    }

    /** One piece of work being counted; see {@link BuildProgress}. */
    public final class Task {
        private final String what;
        private final int total;
        private final long startedNanos;
        private int done;
        private int tenthsShown;
        private long shownNanos;
        private boolean finished;

        private Task(String what, int total) {
            this.what = what;
            this.total = total;
            this.startedNanos = nanoClock.getAsLong();
            this.shownNanos = startedNanos - TERMINAL_INTERVAL_NANOS;
            if (terminal) {
                synchronized (BuildProgress.this) {
                    show();
                }
            }
        }

        /** One more step done; thread-safe. */
        public void step() {
            if (out == null) {
                return;
            }
            synchronized (BuildProgress.this) {
                if (finished || done == total) {
                    return;
                }
                done++;
                if (terminal) {
                    long now = nanoClock.getAsLong();
                    if (now - shownNanos >= TERMINAL_INTERVAL_NANOS || done == total) {
                        shownNanos = now;
                        show();
                    }
                } else {
                    int tenths = (int) (10L * done / total);
                    if (tenths > tenthsShown) {
                        tenthsShown = tenths;
                        out.println(what + " " + done + "/" + total + " (" + 100L * done / total + " %)");
                        out.flush();
                    }
                }
            }
        }

        /** The work is over: on a terminal the line is completed with the time taken; idempotent. */
        public void finish() {
            if (out == null) {
                return;
            }
            synchronized (BuildProgress.this) {
                if (finished) {
                    return;
                }
                finished = true;
                if (terminal) {
                    show();
                    out.printf(Locale.ROOT, " in %.1f s%n", (nanoClock.getAsLong() - startedNanos) / 1e9);
                    out.flush();
                }
            }
        }

        private void show() {
            out.print("\r" + what + " " + done + "/" + total + " (" + 100L * done / total + " %)");
            out.flush();
        }
    }
}
