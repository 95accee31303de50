package dev.khameleon.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.SchedulerSettings;
import dev.khameleon.core.scheduler.Selection;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.server.spi.SchedulerContext;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * An application's {@link SchedulerSettings}, every one of them, reach the scheduler of each of
 * its sessions: the {@link SchedulerContext} a factory gets carries them, and the default
 * scheduler's config is built with them.
 */
class SchedulerSettingsReachTest {
    /** None of these is a default. */
    private static final SchedulerSettings TUNED = SchedulerSettings.builder().chunkSize(7).discount(0.9)
            .minBlockGain(0.03).blockGainShare(0.5).planningHorizonMillis(250).forecastFadeMillis(0)
            .selection(Selection.MAX_GAIN).build();

    private record Event(long at, long order, Runnable task) {
    }

    /** A virtual clock and an always-writable link that drops what is sent. */
    private static final class Host implements VirtualSession.Host {
        long now;
        long order;
        final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
                : Long.compare(a.order, b.order));
        ErrorCode closed;

        @Override
        public void at(long atNanos, Runnable task) {
            events.add(new Event(atNanos, order++, task));
        }

        @Override
        public boolean isWritable() {
            return true;
        }

        @Override
        public void send(long seq, Block block, int frameBytes) {
        }

        @Override
        public long jobNanos(long measuredNanos, boolean decodedState, int blocks) {
            return 100_000;
        }

        @Override
        public void closed(ErrorCode code, String message) {
            closed = code;
        }

        void runUntil(long t) {
            while (!events.isEmpty() && events.peek().at <= t) {
                Event e = events.poll();
                now = e.at;
                e.task.run();
            }
            now = t;
        }
    }

    /** Opens one session of {@code app} and returns the context its scheduler was made from. */
    private static SchedulerContext contextOfASession(Application.Builder app) {
        AtomicReference<SchedulerContext> seen = new AtomicReference<>();
        Application a = app.path("/s").blockSource(TestApps.inMemory(20, 3, 500))
                .scheduler(c -> {
                    seen.set(c);
                    return Schedulers.greedy(DefaultScheduler.config(c));
                }).build();
        Host host = new Host();
        KhameleonServer server = KhameleonServer.builder().application(a).clock(() -> host.now).seed(3)
                .fixedBytesPerSecond(1e7).build();
        VirtualSession.open(server, "/s", 50, host);
        host.runUntil(50_000_000);
        assertEquals(null, host.closed, "the session stays open");
        assertNotNull(seen.get(), "the session made its scheduler");
        return seen.get();
    }

    @Test
    void everySetting_reachesTheSchedulerContext_andTheDefaultSchedulersConfig() {
        SchedulerContext c = contextOfASession(Application.builder("s").schedulerSettings(TUNED));
        assertEquals(TUNED, c.settings());
        SchedulerConfig config = DefaultScheduler.config(c);
        assertEquals(7, config.chunkSize());
        assertEquals(0.9, config.discount());
        assertEquals(250.0, config.planningHorizonMillis());
        assertEquals(0.0, config.forecastFadeMillis());
        assertSame(Selection.MAX_GAIN, config.selection());
        assertEquals(TUNED, config.settings(), "the floors too");
        assertEquals(50, config.cacheBlocks());
        assertEquals(20, config.requestCount());
    }

    @Test
    void theConvenienceSetters_changeOneSettingEach() {
        SchedulerContext c = contextOfASession(Application.builder("s").schedulerSettings(TUNED).chunkSize(9)
                .discount(0.5).minBlockGain(0.04).blockGainShare(0.1));
        assertEquals(TUNED.toBuilder().chunkSize(9).discount(0.5).minBlockGain(0.04).blockGainShare(0.1).build(),
                c.settings());
        assertEquals(9, c.chunkSize());
        assertEquals(0.5, c.discount());
        assertEquals(0.04, c.minBlockGain());
        assertEquals(0.1, c.blockGainShare());
        assertEquals(SchedulerSettings.defaults(), contextOfASession(Application.builder("s")).settings());
    }

    @Test
    void schedulerSettings_keepTheServersCapOnTheChunkSize() {
        Application.Builder b = Application.builder("s");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> b.schedulerSettings(SchedulerSettings.builder().chunkSize(100_001).build()));
        assertEquals("chunkSize must be in [1, 100000], was 100001", e.getMessage());
        assertThrows(NullPointerException.class, () -> b.schedulerSettings(null));
        Application a = b.blockSource(TestApps.inMemory(2, 1, 8)).build();
        assertEquals(SchedulerSettings.defaults(), a.schedulerSettings(), "a rejected value changes nothing");
        assertTrue(a.chunkSize() == 100);
    }
}
