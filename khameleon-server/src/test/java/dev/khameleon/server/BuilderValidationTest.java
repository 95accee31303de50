package dev.khameleon.server;

import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.SchedulerSettings;
import dev.khameleon.core.spi.UtilityFunction;
import dev.khameleon.server.spi.SchedulerContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every builder setting rejects a bad value at once, naming the setting and the value. */
class BuilderValidationTest {

    private static void rejects(String setting, String value, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(setting) && e.getMessage().contains(value), e.getMessage());
    }

    @Test
    void serverBuilder_rejectsOutOfRangeSettings() {
        KhameleonServer.Builder b = KhameleonServer.builder();
        rejects("port", "70000", () -> b.port(70_000));
        rejects("maxSessions", "0", () -> b.maxSessions(0));
        rejects("maxFramePayloadBytes", "10", () -> b.maxFramePayloadBytes(10));
        rejects("writeBufferWaterMark", "high=10", () -> b.writeBufferWaterMark(100, 10));
        rejects("initialBytesPerSecond", "NaN", () -> b.initialBytesPerSecond(Double.NaN));
        rejects("maxBytesPerSecond", "-1", () -> b.maxBytesPerSecond(-1));
        rejects("pacingGain", "0.5", () -> b.pacingGain(0.5));
        rejects("inFlightGain", "0.5", () -> b.inFlightGain(0.5));
        rejects("inFlightGain", "17.0", () -> b.inFlightGain(17));
        rejects("inFlightGain", "NaN", () -> b.inFlightGain(Double.NaN));
        rejects("schedulerShare", "0.0", () -> b.schedulerShare(0));
        rejects("schedulerShare", "1.5", () -> b.schedulerShare(1.5));
        rejects("schedulerShare", "NaN", () -> b.schedulerShare(Double.NaN));
        rejects("fetchWindow", "0", () -> b.fetchWindow(0));
        rejects("fetchTimeout", "PT0S", () -> b.fetchTimeout(Duration.ZERO));
        rejects("readIdleTimeout", "PT-1S", () -> b.readIdleTimeout(Duration.ofSeconds(-1)));
        rejects("schedulerThreads", "0", () -> b.schedulerThreads(0));
        rejects("allowedOrigins", "[ ]", () -> b.allowedOrigins(" "));
        rejects("application", "required", b::build);
        rejects("maxBytesPerSecond", "999.0", () -> b.maxBytesPerSecond(999));
        rejects("fixedBytesPerSecond", "4.9E-324", () -> b.fixedBytesPerSecond(Double.MIN_VALUE));
        rejects("helloTimeout", "PT0S", () -> b.helloTimeout(Duration.ZERO));
        rejects("maxConnectionsPerAddress", "0", () -> b.maxConnectionsPerAddress(0));
        rejects("maxHandshakesPerAddress", "0", () -> b.maxHandshakesPerAddress(0));
        rejects("maxTotalCacheBlocks", "0", () -> b.maxTotalCacheBlocks(0));
        rejects("stateInterval", "PT11S", () -> b.stateInterval(Duration.ofSeconds(11)));
        rejects("maxInboundBytesPerSecond", "1023", () -> b.maxInboundBytesPerSecond(1023));
        rejects("maxInboundBytesPerSecond", "1073741825", () -> b.maxInboundBytesPerSecond((1 << 30) + 1));
    }

    @Test
    void serverBuilder_rejectsAPerSessionCacheAboveTheBudget() {
        KhameleonServer.Builder b = KhameleonServer.builder().application(
                Application.builder("a").blockSource(TestApps.inMemory(2, 1, 8)).build());
        rejects("maxCacheBlocks (20000)", "maxTotalCacheBlocks (10000)",
                () -> b.maxCacheBlocks(20_000).maxTotalCacheBlocks(10_000).build());
    }

    /** Internet-safe defaults: loopback only, a bounded cache per hello, a budget that fits it. */
    @Test
    void serverDefaults_bindLoopbackOnly() {
        try (KhameleonServer server = KhameleonServer.builder().port(0)
                .application(Application.builder("a").blockSource(TestApps.inMemory(2, 1, 8)).build())
                .build().start()) {
            assertTrue(server.localAddress().getAddress().isLoopbackAddress(), server.localAddress().toString());
            assertEquals(16_384, server.runtime().config.maxCacheBlocks());
            assertEquals(1L << 21, server.runtime().config.maxTotalCacheBlocks());
        }
    }

    @Test
    void applicationBuilder_rejectsBadSettings() {
        rejects("name", "\"\"", () -> Application.builder(""));
        Application.Builder b = Application.builder("a");
        rejects("path", "nope", () -> b.path("nope"));
        rejects("horizons", "[50, 50]", () -> b.horizons(50, 50));
        rejects("chunkSize", "0", () -> b.chunkSize(0));
        rejects("discount", "1.5", () -> b.discount(1.5));
        rejects("minBlockGain", "1.5", () -> b.minBlockGain(1.5));
        rejects("minBlockGain", "0.0", () -> b.minBlockGain(0));
        rejects("blockGainShare", "1.5", () -> b.blockGainShare(1.5));
        rejects("blockGainShare", "-0.1", () -> b.blockGainShare(-0.1));
        rejects("blockSource", "required", b::build);
    }

    @Test
    void minBlockGain_defaultsToTheSchedulersLeastGain_andReachesTheSchedulerContext() {
        Application plain = Application.builder("a").blockSource(TestApps.inMemory(2, 1, 8)).build();
        assertEquals(SchedulerConfig.MIN_BLOCK_GAIN, plain.minBlockGain());
        Application floored = Application.builder("a").blockSource(TestApps.inMemory(2, 1, 8)).minBlockGain(0.03)
                .build();
        assertEquals(0.03, floored.minBlockGain());
        assertEquals(0.03, context(floored).minBlockGain());
        assertEquals(SchedulerConfig.MIN_BLOCK_GAIN, context(plain).minBlockGain());
    }

    @Test
    void blockGainShare_defaultsToTheSchedulersDefault_andReachesTheSchedulerContext() {
        Application plain = Application.builder("a").blockSource(TestApps.inMemory(2, 1, 8)).build();
        assertEquals(SchedulerConfig.DEFAULT_BLOCK_GAIN_SHARE, plain.blockGainShare());
        Application off = Application.builder("a").blockSource(TestApps.inMemory(2, 1, 8)).blockGainShare(0).build();
        assertEquals(0, off.blockGainShare());
        assertEquals(0.0, context(off).blockGainShare());
        assertEquals(SchedulerConfig.DEFAULT_BLOCK_GAIN_SHARE, context(plain).blockGainShare());
    }

    /** A context carrying {@code app}'s settings, as a session builds it. */
    private static SchedulerContext context(Application app) {
        return new SchedulerContext(8, 2, r -> 1, UtilityFunction.linear(), app.schedulerSettings(), 1, 0, () -> 0,
                r -> false, r -> false);
    }

    @Test
    void schedulerContext_rejectsBadSessionFacts() {
        SchedulerSettings d = SchedulerSettings.defaults();
        rejects("cacheBlocks", "0", () -> new SchedulerContext(0, 2, r -> 1, UtilityFunction.linear(), d, 1, 0,
                () -> 0, r -> false, r -> false));
        rejects("requestCount", "0", () -> new SchedulerContext(8, 0, r -> 1, UtilityFunction.linear(), d, 1, 0,
                () -> 0, r -> false, r -> false));
        rejects("backendConcurrency", "-1", () -> new SchedulerContext(8, 2, r -> 1, UtilityFunction.linear(), d, 1,
                -1, () -> 0, r -> false, r -> false));
        assertThrows(NullPointerException.class, () -> new SchedulerContext(8, 2, r -> 1, UtilityFunction.linear(),
                null, 1, 0, () -> 0, r -> false, r -> false));
    }

    @Test
    void serverBuilder_rejectsTwoApplicationsOnOnePath() {
        Application a = Application.builder("a").path("/x").blockSource(TestApps.inMemory(2, 1, 8)).build();
        Application b = Application.builder("b").path("/x").blockSource(TestApps.inMemory(2, 1, 8)).build();
        KhameleonServer.Builder builder = KhameleonServer.builder().application(a);
        rejects("/x", "already taken", () -> builder.application(b));
    }
}
