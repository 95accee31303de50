package dev.khameleon.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The warnings a test provokes on purpose (a failing fetch, a tier taken down, a damaged value),
 * captured while it runs so that the test asserts them instead of printing them into the build's
 * output. A capture keeps only the WARN lines of one logger that contain a given text; everything
 * else written to standard error passes through unchanged, so a warning the test did not expect
 * still shows. Thread-safe: events logged on any thread are captured.
 *
 * <p>The tests log through slf4j-simple, which writes each event to whatever {@code System.err}
 * is at that moment as one line {@code [thread] LEVEL logger - message} (after a time stamp where a
 * module's {@code simplelogger.properties} asks for one), followed by its throwable's stack trace
 * if it has one. A capture puts a filter in place of {@code System.err} that keeps the matching
 * lines, with the stack trace that follows them. Should slf4j-simple write differently one day,
 * the capture keeps nothing and the tests that assert their warnings fail, rather than pass on
 * output nobody reads.
 *
 * <p>Open one in try-with-resources around the code that logs and assert before it closes; what is
 * logged after {@link #close()} is printed as usual. Captures nest, each wrapping the one before,
 * so a test that expects two warnings opens two. Standard error is the JVM's, so a capture would
 * also take matching lines from a test running beside it; each Surefire fork here runs one test at
 * a time.
 */
public final class LogCapture implements AutoCloseable {
    /** The first line of a throwable's stack trace: its class name, then perhaps its message. */
    private static final Pattern THROWABLE =
            Pattern.compile("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)+(: .*)?");

    private final String prefix;
    private final String text;
    private final PrintStream original;
    private final LineFilter lines = new LineFilter();
    private final PrintStream filter = new PrintStream(lines, true, StandardCharsets.UTF_8);
    private final List<String> messages = new ArrayList<>();
    /** Lines of the last captured event so far: 1 is the event line itself, 0 outside an event. */
    private int eventLines;

    private LogCapture(String loggerName, String text) {
        if (loggerName.isEmpty() || text.isEmpty()) {
            throw new IllegalArgumentException("name a logger and a text (got '" + loggerName + "', '" + text + "')");
        }
        this.prefix = " WARN " + loggerName + " - ";
        this.text = text;
        original = System.err;
        System.setErr(filter);
    }

    /** Starts capturing the WARN events of the logger named for {@code logger} whose message contains {@code text}. */
    public static LogCapture warnings(Class<?> logger, String text) {
        return new LogCapture(logger.getName(), text);
    }

    /** Starts capturing the WARN events of the logger {@code loggerName} whose message contains {@code text}. */
    public static LogCapture warnings(String loggerName, String text) {
        return new LogCapture(loggerName, text);
    }

    /** The messages of the warnings captured so far, in the order they were logged. */
    public synchronized List<String> messages() {
        return List.copyOf(messages);
    }

    /**
     * Waits for the first warning, for one logged on another thread (a tier's I/O thread, a
     * session's event loop) after the call that provoked it returned.
     *
     * @return its message
     * @throws AssertionError if none comes within {@code seconds}
     */
    public synchronized String await(int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (messages.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("no warning of" + prefix + "… containing '" + text + "' within "
                        + seconds + " s");
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return messages.get(0);
    }

    /**
     * Stops capturing and puts back the standard error this capture replaced.
     *
     * @throws IllegalStateException if another stream took {@code System.err}'s place meanwhile and
     *     is still there (a capture opened inside this one and not closed)
     */
    @Override
    public void close() {
        if (System.err != filter) {
            throw new IllegalStateException("System.err was replaced while a log capture was open");
        }
        System.setErr(original);
        lines.release();
    }

    /** Called for each complete line written to the filter; true to keep it from the output. */
    private synchronized boolean capture(String line) {
        if (eventLines > 0 && (line.startsWith("\t") || line.startsWith("Caused by: ")
                || eventLines == 1 && THROWABLE.matcher(line).matches())) {
            // Its throwable's stack trace: part of the expected warning, kept from the output too.
            eventLines++;
            return true;
        }
        eventLines = 0;
        int at = line.indexOf(prefix);
        if (at >= 0 && line.indexOf(text, at + prefix.length()) >= 0) {
            messages.add(line.substring(at + prefix.length()));
            eventLines = 1;
            notifyAll();
            return true;
        }
        return false;
    }

    /**
     * Splits what is written to the stand-in standard error into lines, and passes on to the
     * original the lines {@link #capture} does not keep. A line is held until its end comes, so a
     * warning written in pieces is still seen whole.
     */
    private final class LineFilter extends OutputStream {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        private boolean released;

        @Override
        public synchronized void write(int b) {
            if (released) {
                original.write(b);
                return;
            }
            line.write(b);
            if (b == '\n') {
                endLine();
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }

        private void endLine() {
            String text = line.toString(StandardCharsets.UTF_8);
            line.reset();
            String bare = text.endsWith("\r\n") ? text.substring(0, text.length() - 2)
                    : text.substring(0, text.length() - 1);
            if (!capture(bare)) {
                original.print(text);
                original.flush();
            }
        }

        /**
         * Passes on a line left unfinished and everything written from now on: a thread that
         * took the stand-in before the capture closed may still print through it.
         */
        synchronized void release() {
            released = true;
            if (line.size() > 0) {
                original.print(line.toString(StandardCharsets.UTF_8));
                original.flush();
                line.reset();
            }
        }
    }
}
