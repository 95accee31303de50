package dev.khameleon.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;

/**
 * The server's log of refused connections and sessions closed for an error: one line per
 * refusal, naming who, a stable code and a detail, at most {@value #LINES_PER_SECOND} lines per
 * second. Lines over the limit are counted and the count is reported on the next line written
 * ({@code "(N similar lines suppressed)"}), so a flood of bad clients cannot flood the log.
 * Everything but the code is passed through {@link LogText#clean}. Thread-safe.
 */
final class RefusalLog {
    /** The most lines written per second (per server). */
    static final int LINES_PER_SECOND = 10;

    private static final Logger log = LoggerFactory.getLogger("dev.khameleon.server.refusals");
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LongSupplier nanoClock;
    private final BiConsumer<Level, String> sink;
    private long windowStart;
    private boolean started;
    private int linesInWindow;
    private long suppressed;

    /** Writes to the {@code dev.khameleon.server.refusals} logger. */
    RefusalLog(LongSupplier nanoClock) {
        this(nanoClock, (level, line) -> log.atLevel(level).log(line));
    }

    RefusalLog(LongSupplier nanoClock, BiConsumer<Level, String> sink) {
        this.nanoClock = nanoClock;
        this.sink = sink;
    }

    /**
     * Logs {@code "<who>: <code>: <detail>"} at {@code level} unless the rate limit is reached.
     *
     * @param who    e.g. {@code "refused connection from /1.2.3.4:5678"} or {@code "session 0001…"}
     * @param code   a stable code: an error code's wire name or a refusal such as {@code http_404}
     * @param detail a human explanation; may contain client-controlled text
     */
    void log(Level level, String who, String code, Object detail) {
        long dropped;
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (!started || now - windowStart >= WINDOW_NANOS) {
                started = true;
                windowStart = now;
                linesInWindow = 0;
            }
            if (linesInWindow >= LINES_PER_SECOND) {
                suppressed++;
                return;
            }
            linesInWindow++;
            dropped = suppressed;
            suppressed = 0;
        }
        String line = LogText.clean(who) + ": " + code + ": " + LogText.clean(detail)
                + (dropped > 0 ? " (" + dropped + " similar lines suppressed)" : "");
        sink.accept(level, line);
    }
}
