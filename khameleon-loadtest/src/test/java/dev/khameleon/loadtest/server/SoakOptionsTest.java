package dev.khameleon.loadtest.server;

import dev.khameleon.simulator.CommandRun;
import dev.khameleon.loadtest.Cli;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code khameleon-loadtest soak}'s options: their defaults, and bad ones refused in one line naming the option. */
class SoakOptionsTest {
    /** The settings {@code soak args} gives, checked as a run checks them. */
    private static SoakOptions parse(String... args) {
        CommandLine cli = new CommandLine(new Soak());
        cli.parseArgs(args);
        return ((Soak) cli.getCommand()).options();
    }

    /** Runs {@code khameleon-loadtest soak args}; returns {exit status, stdout, stderr}. */
    private static String[] execute(String... args) {
        return CommandRun.ofCommand(Cli.commandLine(), "soak", args).asArray();
    }

    @Test
    void noArguments_giveTheDocumentedDefaults() {
        SoakOptions o = parse();
        assertEquals(200, o.healthy());
        assertEquals(20, o.seconds());
        assertEquals(3, o.warmup());
        assertEquals(EnumSet.allOf(HostileKind.class), o.hostile());
        assertEquals(20e6, o.totalRate());
        assertEquals(100_000, o.ratePerSession(), 1e-9);
        assertEquals(10_000, o.requests());
        assertEquals(0.1, o.schedulerShare(), "the server's default");
        assertTrue(o.inlineFetch());
        assertEquals(200, o.healthyAddresses(), "one address per healthy session");
    }

    @Test
    void healthyAddresses_areDistinctLoopbackAddresses_apartFromTheHostileOnes() {
        SoakOptions o = parse("--healthy", "2000");
        Set<String> hostile = new java.util.HashSet<>();
        for (HostileKind k : HostileKind.values()) {
            for (int w = 0; w < k.clients; w++) {
                hostile.add(k.address(w));
            }
        }
        Set<String> healthy = new java.util.HashSet<>();
        for (int i = 0; i < 2000; i++) {
            String a = o.healthyAddress(i);
            assertTrue(a.matches("127\\.1\\.\\d+\\.\\d+"), a);
            assertTrue(healthy.add(a), "session " + i + " shares " + a);
            assertFalse(hostile.contains(a), a);
        }
        assertEquals("127.1.0.1", o.healthyAddress(0));
        assertEquals("127.1.0.250", o.healthyAddress(249));
        assertEquals("127.1.1.1", o.healthyAddress(250));
        assertEquals(1, o.healthyPerAddress());
        assertEquals(64, Soak.maxConnectionsPerAddress(o, true, 100), "the server's default when each has its own");
    }

    @Test
    void fewerHealthyAddresses_areSharedInTurn_andRaiseTheConnectionLimit() {
        SoakOptions o = parse("--healthy", "2000", "--healthy-addresses", "10");
        assertEquals(10, o.healthyAddresses());
        assertEquals(o.healthyAddress(3), o.healthyAddress(13));
        assertEquals(200, o.healthyPerAddress());
        assertEquals(200, Soak.maxConnectionsPerAddress(o, true, 100));
        assertEquals(2100, Soak.maxConnectionsPerAddress(o, false, 100), "everyone on 127.0.0.1");
        assertEquals(3, parse("--healthy", "7", "--healthy-addresses", "3").healthyPerAddress());
    }

    @Test
    void theCacheBudget_isTheServersDefault_untilTheHealthyCachesAloneExceedIt() {
        assertEquals(2_097_152L, Soak.maxTotalCacheBlocks(parse("--healthy", "200")));
        assertEquals(2_097_152L, Soak.maxTotalCacheBlocks(parse("--healthy", "2000")), "2,000 × 1,000 blocks fit");
        assertEquals(10_000_000L + 1_048_576L, Soak.maxTotalCacheBlocks(parse("--healthy", "10000")),
                "the healthy caches and half the default for the max-cache clients");
    }

    @Test
    void requests_makeASquareGrid() {
        SoakOptions o = parse("--requests", "1000000");
        assertEquals(1_000_000, o.workload().requests());
        assertTrue(o.workload().isGrid());
        assertEquals(1000, SoakOptions.gridSide(1_000_000));
        assertEquals(-1, SoakOptions.gridSide(1_000_001));
    }

    @Test
    void everyOption_isRead() {
        SoakOptions o = parse("--healthy", "1000", "--seconds", "5", "--warmup", "0",
                "--hostile", "ping-flood,huge-cache", "--total-rate", "4e7", "--fetch", "executor");
        assertEquals(1000, o.healthy());
        assertEquals(5, o.seconds());
        assertEquals(0, o.warmup());
        assertEquals(Set.of(HostileKind.PING_FLOOD, HostileKind.HUGE_CACHE), o.hostile());
        assertEquals(40_000, o.ratePerSession(), 1e-9);
        assertEquals(false, o.inlineFetch());
    }

    @Test
    void ratePerSession_isCappedAtTwoMegabytes() {
        SoakOptions o = parse("--healthy", "2");
        assertEquals(2e6, o.ratePerSession(), 1e-9);
        assertEquals(2.064, o.slotMillis(), 1e-9); // a 32-byte header and 4,096 bytes at 2 MB/s
    }

    @Test
    void hostileNone_runsTheBaselineOnly() {
        assertTrue(parse("--hostile", "none").hostile().isEmpty());
    }

    @Test
    void badValues_areRefusedInOneLineNamingTheOption_withStatus2() {
        for (List<String> c : List.of(
                List.of("--fetch", "threads", "khameleon-loadtest soak: --fetch: 'inline' or 'executor', not 'threads'"),
                List.of("--healthy", "0", "khameleon-loadtest soak: --healthy: 0 is outside [1, 10000]"),
                List.of("--seconds", "601", "khameleon-loadtest soak: --seconds: 601 is outside [1, 600]"),
                List.of("--warmup", "-1", "khameleon-loadtest soak: --warmup: -1 is outside [0, 60]"),
                List.of("--hostile", "no-hello,no-hello", "khameleon-loadtest soak: --hostile: 'no-hello' listed twice"),
                List.of("--requests", "1000001", "khameleon-loadtest soak: --requests: 1000001 is not a square number in"
                        + " [4, 10000000] (the application is a grid of √N × √N cells), e.g. 10000 or 1000000"),
                List.of("--scheduler-share", "0", "khameleon-loadtest soak: --scheduler-share: 0.0 is outside (0, 1]"),
                List.of("--healthy-addresses", "0", "khameleon-loadtest soak: --healthy-addresses: 0 is outside [1, 10000]"),
                List.of("--requests", "1", "khameleon-loadtest soak: --requests: 1 is not a square number in"
                        + " [4, 10000000] (the application is a grid of √N × √N cells), e.g. 10000 or 1000000"))) {
            String[] r = execute(c.get(0), c.get(1));
            assertEquals("2", r[0], c + ": " + r[2]);
            assertEquals(c.get(2), r[2].strip(), c.toString());
            assertEquals("", r[1], "nothing ran");
        }
    }

    @Test
    void rateBelowTheServerMinimumPerSession_isRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("--healthy", "1000", "--total-rate", "999000"));
        assertTrue(e.getMessage().startsWith("--total-rate:"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> parse("--total-rate", "NaN"));
    }

    @Test
    void unknownHostileKind_namesTheKinds() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("--hostile", "ping-flood,slowloris"));
        assertTrue(e.getMessage().contains("'slowloris'") && e.getMessage().contains("max-cache"), e.getMessage());
    }

    @Test
    void parseErrors_nameWhatWasTyped() {
        String[] r = execute("--seconds", "ten");
        assertEquals("2", r[0], r[2]);
        assertEquals("khameleon-loadtest soak: --seconds ten: not a whole number", r[2].lines().findFirst().orElse(""));
        r = execute("--sessions", "5");
        assertEquals("2", r[0], r[2]);
        assertTrue(r[2].startsWith("khameleon-loadtest soak: --sessions: unknown option"), r[2]);
        r = execute("--healthy");
        assertEquals("2", r[0], r[2]);
        assertTrue(r[2].startsWith("khameleon-loadtest soak: --healthy: needs a value"), r[2]);
        assertEquals("", r[1], "nothing ran");
    }

    @Test
    void hostileAddresses_areLoopbackButNot127001() {
        assertEquals("127.0.0.2", HostileKind.PING_FLOOD.address(0));
        assertEquals("127.0.0.5", HostileKind.HUGE_CACHE.address(0));
        assertEquals("127.0.0.6", HostileKind.MAX_CACHE.address(0));
        assertEquals("127.0.0.9", HostileKind.MAX_CACHE.address(3));
    }
}
