package dev.khameleon.core.testkit;

import java.io.PrintStream;
import java.util.Optional;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestWatcher;
import org.opentest4j.TestAbortedException;

/**
 * Prints one line per skipped test, naming it and saying why ({@code [SKIPPED] Class.test: reason}),
 * since the build's console otherwise only counts skips. Registered in every module's tests through
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension} with extension auto-detection
 * on (set in the parent POM's Surefire configuration).
 */
public final class SkipReasonReporter implements TestWatcher, LifecycleMethodExecutionExceptionHandler {
    private final PrintStream out;

    /** A reporter printing to standard output, where Surefire shows it among the test output. */
    public SkipReasonReporter() {
        this(System.out);
    }

    SkipReasonReporter(PrintStream out) {
        this.out = out;
    }

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        report(context, cause.getMessage());
    }

    @Override
    public void testDisabled(ExtensionContext context, Optional<String> reason) {
        report(context, reason.orElse("disabled"));
    }

    /** A whole class skipped by an assumption in {@code @BeforeAll}: one line for the class. */
    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable throwable)
            throws Throwable {
        if (throwable instanceof TestAbortedException) {
            report(context, throwable.getMessage());
        }
        throw throwable;
    }

    private void report(ExtensionContext context, String reason) {
        String test = context.getRequiredTestClass().getSimpleName()
                + context.getTestMethod().map(m -> "." + context.getDisplayName()).orElse("");
        String why = reason == null || reason.isBlank() ? "no reason given" : reason.replaceFirst("^Assumption failed: ", "");
        out.println("[SKIPPED] " + test + ": " + why.replace('\n', ' '));
    }
}
