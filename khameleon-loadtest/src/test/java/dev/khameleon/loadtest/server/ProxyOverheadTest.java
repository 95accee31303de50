package dev.khameleon.loadtest.server;

import dev.khameleon.simulator.CommandRun;
import dev.khameleon.loadtest.proxy.HaproxyConfig;
import dev.khameleon.loadtest.Cli;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The proxy-overhead tool's command line, and one short run through Debian's haproxy (structure only, no timings). */
class ProxyOverheadTest {
    private static final Path HAPROXY = Path.of("/usr/sbin/haproxy");
    private static final Path DOC = Path.of("..", "docs", "scale-out.md");

    /** Runs {@code khameleon-loadtest proxy-overhead args}; returns {exit status, stdout, stderr}. */
    private static String[] execute(String... args) {
        return CommandRun.ofCommand(Cli.commandLine(), "proxy-overhead", args).asArray();
    }

    @Test
    void help_printsTheOptionsAndRunsNothing() {
        String[] r = execute("--help");
        assertEquals("0", r[0], r[2]);
        assertTrue(r[1].startsWith("Usage: khameleon-loadtest proxy-overhead"), r[1]);
        for (String option : List.of("--sessions", "--rounds", "--seconds", "--warmup", "--mode", "--total-rate",
                "--haproxy", "--config-doc")) {
            assertTrue(r[1].contains(option), option + " in " + r[1]);
        }
        assertEquals("", r[2]);
    }

    @Test
    void badArguments_failWithOneLineNamingTheOption() {
        List<List<String>> cases = List.of(
                List.of("--sessions", "0", "--sessions"),
                List.of("--sessions", "50,2001", "--sessions"),
                List.of("--rounds", "0", "--rounds"),
                List.of("--seconds", "121", "--seconds"),
                List.of("--warmup", "-1", "--warmup"),
                List.of("--total-rate", "1e5", "--total-rate"));
        for (List<String> c : cases) {
            String[] r = execute(c.get(0), c.get(1), "--haproxy", "/nonexistent/haproxy");
            assertEquals("2", r[0], c + ": " + r[2]);
            assertTrue(r[2].startsWith("khameleon-loadtest proxy-overhead: " + c.get(2) + ":"), c + ": " + r[2]);
            assertEquals(1, r[2].lines().count(), r[2]);
            assertEquals("", r[1], "nothing ran");
        }
    }

    @Test
    void missingHaproxy_failsWithOneLineNamingThePackage() {
        String[] r = execute("--haproxy", "/nonexistent/haproxy", "--config-doc", DOC.toString());
        assertEquals("2", r[0], r[2]);
        assertEquals("khameleon-loadtest proxy-overhead: haproxy not found at /nonexistent/haproxy (install Debian's package haproxy,"
                + " or pass --haproxy PATH)", r[2].strip());
        assertEquals("", r[1], "nothing ran");
    }

    @Test
    void expectedSeconds_coversEveryRun() {
        ProxyOverhead tool = new ProxyOverhead();
        tool.sessions = new int[] {50, 200};
        tool.rounds = 3;
        tool.seconds = 5;
        tool.warmup = 2;
        tool.mode = ProxyOverhead.Mode.BOTH;
        // 2 modes x 2 session counts x 3 rounds x 2 routes, each at least warm-up + measurement.
        assertTrue(tool.expectedSeconds() >= 24 * 7, Long.toString(tool.expectedSeconds()));
        assertEquals(List.of(ProxyOverhead.Mode.THROUGHPUT, ProxyOverhead.Mode.LATENCY), tool.modes());
    }

    @Test
    @Timeout(120)
    void oneShortRound_measuresBothRoutesInBothModes() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(HAPROXY),
                "haproxy not found at " + HAPROXY + " (Debian package haproxy); test skipped");
        ProxyOverhead tool = new ProxyOverhead();
        tool.sessions = new int[] {3};
        tool.rounds = 1;
        tool.seconds = 1;
        tool.warmup = 0;
        tool.totalRate = 3e5;
        tool.validate();
        String documented = HaproxyConfig.documented(DOC);

        ProxyOverhead.Comparison throughput = tool.compare(ProxyOverhead.Mode.THROUGHPUT, 3, documented);
        ProxyOverhead.Comparison latency = tool.compare(ProxyOverhead.Mode.LATENCY, 3, documented);

        for (ProxyOverhead.Route route : ProxyOverhead.Route.values()) {
            assertEquals(1, throughput.of(route).size());
            assertTrue(throughput.of(route).get(0).bytes() > 0, route + " clients received no block");
            assertTrue(latency.delays(route).getTotalCount() > 0, route + " clients timed no state");
        }
        assertTrue(ProxyOverhead.throughputTable(List.of(throughput)).contains("\n| 3 | "));
        assertTrue(ProxyOverhead.latencyTable(List.of(latency)).contains("\n| 3 | 100 | "), "a row for 3 sessions at 100 KB/s each");
    }

    @Test
    void header_givesTheCoresNotTheLoadAverage() {
        CommandLine cli = new CommandLine(new ProxyOverhead());
        cli.parseArgs("--sessions", "3", "--rounds", "1");
        String header = ((ProxyOverhead) cli.getCommand()).header("HAProxy version 2.6");
        assertEquals("ProxyOverhead: sessions [3], 1 rounds, 2 s warm-up + 5 s per run, HAProxy version 2.6; "
                + Runtime.getRuntime().availableProcessors() + " cores", header);
    }

    @Test
    void parseError_isOneLineNamingTheOptionPlusItsUsageLine() {
        String[] r = execute("--rounds", "three");
        assertEquals("2", r[0], r[2]);
        List<String> lines = r[2].lines().toList();
        assertEquals("khameleon-loadtest proxy-overhead: --rounds three: not a whole number", lines.get(0));
        assertTrue(lines.get(1).startsWith("  --rounds="), r[2]);
        assertEquals("Run 'khameleon-loadtest proxy-overhead --help' for all options.", lines.get(2));
        assertEquals(3, lines.size(), r[2]);
        r = execute("--session", "3");
        assertEquals("2", r[0], r[2]);
        assertTrue(r[2].startsWith("khameleon-loadtest proxy-overhead: --session: unknown option\n  --sessions="), r[2]);
        assertTrue(r[2].lines().count() <= 5, r[2]);
    }
}
