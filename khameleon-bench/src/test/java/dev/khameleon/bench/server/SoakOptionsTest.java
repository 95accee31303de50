package dev.khameleon.bench.server;

import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SoakOptionsTest {
    @Test
    void parse_noArguments_givesTheDocumentedDefaults() {
        SoakOptions o = SoakOptions.parse();
        assertEquals(200, o.healthy());
        assertEquals(20, o.seconds());
        assertEquals(3, o.warmup());
        assertEquals(EnumSet.allOf(HostileKind.class), o.hostile());
        assertEquals(20e6, o.totalRate());
        assertEquals(100_000, o.ratePerSession(), 1e-9);
        assertTrue(o.inlineFetch());
    }

    @Test
    void parse_readsEveryOption() {
        SoakOptions o = SoakOptions.parse("--healthy", "1000", "--seconds", "5", "--warmup", "0",
                "--hostile", "ping-flood,huge-cache", "--total-rate", "4e7", "--fetch", "executor");
        assertEquals(1000, o.healthy());
        assertEquals(5, o.seconds());
        assertEquals(0, o.warmup());
        assertEquals(Set.of(HostileKind.PING_FLOOD, HostileKind.HUGE_CACHE), o.hostile());
        assertEquals(40_000, o.ratePerSession(), 1e-9);
        assertEquals(false, o.inlineFetch());
    }

    @Test
    void parse_badFetchMode_namesTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SoakOptions.parse("--fetch", "threads"));
        assertTrue(e.getMessage().contains("'inline' or 'executor'"), e.getMessage());
    }

    @Test
    void ratePerSession_isCappedAtTwoMegabytes() {
        SoakOptions o = SoakOptions.parse("--healthy", "2");
        assertEquals(2e6, o.ratePerSession(), 1e-9);
        assertEquals(2.064, o.slotMillis(), 1e-9); // a 32-byte header and 4,096 bytes at 2 MB/s
    }

    @Test
    void parse_hostileNone_runsTheBaselineOnly() {
        assertTrue(SoakOptions.parse("--hostile", "none").hostile().isEmpty());
    }

    @Test
    void parse_unknownOption_namesItAndShowsUsage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SoakOptions.parse("--sessions", "5"));
        assertTrue(e.getMessage().contains("'--sessions'"), e.getMessage());
        assertTrue(e.getMessage().contains("usage:"), e.getMessage());
    }

    @Test
    void parse_missingValue_isAnError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SoakOptions.parse("--healthy"));
        assertEquals("--healthy: missing value", e.getMessage());
    }

    @Test
    void parse_notANumber_namesOptionAndValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SoakOptions.parse("--seconds", "ten"));
        assertEquals("--seconds: not an integer: 'ten'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SoakOptions.parse("--total-rate", "fast"));
        assertEquals("--total-rate: not a number: 'fast'", e.getMessage());
    }

    @Test
    void parse_outOfRange_namesBounds() {
        assertEquals("--healthy: 0 is outside [1, 10000]", assertThrows(IllegalArgumentException.class,
                () -> SoakOptions.parse("--healthy", "0")).getMessage());
        assertEquals("--seconds: 601 is outside [1, 600]", assertThrows(IllegalArgumentException.class,
                () -> SoakOptions.parse("--seconds", "601")).getMessage());
        assertEquals("--warmup: -1 is outside [0, 60]", assertThrows(IllegalArgumentException.class,
                () -> SoakOptions.parse("--warmup", "-1")).getMessage());
    }

    @Test
    void parse_rateBelowTheServerMinimumPerSession_isRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SoakOptions.parse("--healthy", "1000", "--total-rate", "999000"));
        assertTrue(e.getMessage().startsWith("--total-rate:"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SoakOptions.parse("--total-rate", "NaN"));
    }

    @Test
    void parse_unknownOrRepeatedHostileKind_isRejected() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SoakOptions.parse("--hostile", "ping-flood,slowloris"));
        assertTrue(e.getMessage().contains("'slowloris'") && e.getMessage().contains("max-cache"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SoakOptions.parse("--hostile", "no-hello,no-hello"));
        assertEquals("--hostile: 'no-hello' listed twice", e.getMessage());
    }

    @Test
    void hostileAddresses_areLoopbackButNot127001() {
        assertEquals("127.0.0.2", HostileKind.PING_FLOOD.address(0));
        assertEquals("127.0.0.5", HostileKind.HUGE_CACHE.address(0));
        assertEquals("127.0.0.6", HostileKind.MAX_CACHE.address(0));
        assertEquals("127.0.0.9", HostileKind.MAX_CACHE.address(3));
    }
}
