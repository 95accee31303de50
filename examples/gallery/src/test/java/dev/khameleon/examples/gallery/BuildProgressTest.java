package dev.khameleon.examples.gallery;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** What the person waiting for the corpus sees: plain lines in a log, one line rewritten on a terminal. */
class BuildProgressTest {

    @Test
    void withoutATerminal_printsAPlainLineEachTenth() {
        StringWriter text = new StringWriter();
        BuildProgress progress = BuildProgress.to(new PrintWriter(text), false);
        BuildProgress.Task task = progress.start("encoding pictures", 120);
        for (int i = 0; i < 120; i++) {
            task.step();
        }
        task.finish();
        task.step(); // after the end: nothing
        progress.line("done");
        String expected = IntStream.rangeClosed(1, 10).mapToObj(t -> "encoding pictures " + 12 * t + "/120 (" + 10 * t + " %)")
                .reduce("", (all, line) -> all + line + System.lineSeparator()) + "done" + System.lineSeparator();
        assertEquals(expected, text.toString());
        assertEquals(-1, text.toString().indexOf('\r'), "no carriage return in a log");
    }

    @Test
    void withoutATerminal_fewStepsPrintEachTenthReachedOnce() {
        StringWriter text = new StringWriter();
        BuildProgress.Task task = BuildProgress.to(new PrintWriter(text), false).start("encoding pictures", 3);
        task.step();
        task.step();
        task.step();
        task.finish();
        assertEquals(String.join(System.lineSeparator(), "encoding pictures 1/3 (33 %)", "encoding pictures 2/3 (66 %)",
                "encoding pictures 3/3 (100 %)", ""), text.toString());
    }

    @Test
    void onATerminal_rewritesOneLineAtMostTenTimesASecondAndEndsItWithTheTime() {
        StringWriter text = new StringWriter();
        AtomicLong nanos = new AtomicLong();
        BuildProgress.Task task = BuildProgress.to(new PrintWriter(text), true, nanos::get).start("encoding pictures", 4);
        task.step();                 // the first step is shown
        nanos.addAndGet(10_000_000);
        task.step();                 // 10 ms later: too soon to show again
        nanos.addAndGet(200_000_000);
        task.step();                 // shown
        nanos.addAndGet(10_000_000);
        task.step();                 // the last step is always shown
        nanos.addAndGet(40_000_000);
        task.finish();               // 260 ms after the start
        assertEquals("\rencoding pictures 0/4 (0 %)\rencoding pictures 1/4 (25 %)\rencoding pictures 3/4 (75 %)"
                + "\rencoding pictures 4/4 (100 %)\rencoding pictures 4/4 (100 %) in 0.3 s" + System.lineSeparator(),
                text.toString());
    }

    @Test
    void silent_writesNothingAndAnEmptyTaskIsRefused() {
        BuildProgress.Task task = BuildProgress.silent().start("encoding pictures", 2);
        task.step();
        task.finish();
        BuildProgress.silent().line("nothing");
        assertThrows(IllegalArgumentException.class, () -> BuildProgress.silent().start("nothing", 0));
    }
}
