package dev.khameleon.core.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** Each skipped test, or class skipped in {@code @BeforeAll}, gets one line naming it and its reason. */
class SkipReasonReporterTest {

    /** Run only through the launcher below (Surefire leaves nested classes alone). */
    @ExtendWith(SkipReasonReporter.class)
    static class SkippingTests {
        @Test
        void needsData() {
            Assumptions.assumeTrue(false, "shared data not found: /nowhere/data");
        }

        @Test
        void runs() {
            assertEquals(2, 1 + 1);
        }
    }

    @ExtendWith(SkipReasonReporter.class)
    static class SkippedClass {
        @BeforeAll
        static void needsBrowser() {
            Assumptions.assumeTrue(false, "chromium not found at /usr/bin/chromium");
        }

        @Test
        void drivesTheBrowser() {
            assertEquals(2, 1 + 1);
        }
    }

    @Test
    void skippedTest_printsOneLineWithItsReason_andNothingForOthers() {
        assertEquals(List.of("[SKIPPED] SkippingTests.needsData(): shared data not found: /nowhere/data"),
                printedBy(SkippingTests.class));
    }

    @Test
    void classSkippedBeforeAll_printsOneLineForTheClass() {
        assertEquals(List.of("[SKIPPED] SkippedClass: chromium not found at /usr/bin/chromium"),
                printedBy(SkippedClass.class));
    }

    private static List<String> printedBy(Class<?> tests) {
        PrintStream saved = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectClass(tests)).build());
        } finally {
            System.setOut(saved);
        }
        return bytes.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("[SKIPPED]")).toList();
    }
}
