package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.protocol.ControlMessage.PredictionState;
import dev.khameleon.core.protocol.ControlMessage.RateReport;
import dev.khameleon.core.spi.ClientPredictor;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PredictorManagerTest {
    private final AtomicLong now = new AtomicLong(1000);
    private final List<PredictionState> states = new ArrayList<>();
    private final List<RateReport> rates = new ArrayList<>();
    private final PredictorManager.Sink sink = new PredictorManager.Sink() {
        @Override
        public synchronized void sendState(PredictionState state) {
            states.add(state);
        }

        @Override
        public synchronized void sendRate(RateReport report) {
            rates.add(report);
        }
    };

    private PredictorManager<PointerEvent> manager(ClientPredictor<PointerEvent> predictor) {
        return PredictorManager.builder(predictor, sink).clock(now::get)
                .stateInterval(Duration.ofMillis(150)).rateInterval(Duration.ofMillis(500)).build();
    }

    /** A predictor whose state never changes. */
    private static ClientPredictor<PointerEvent> constantPredictor() {
        return new ClientPredictor<>() {
            @Override
            public void onEvent(PointerEvent event) {
            }

            @Override
            public JsonNode state(long nowMillis) {
                return JsonNodeFactory.instance.objectNode().put("request", 3);
            }
        };
    }

    @Test
    void states_neverMoreOftenThanTheInterval_evenIfTickedConstantly() {
        PredictorManager<PointerEvent> m = manager(KalmanPredictor.create());
        for (int t = 0; t < 1500; t++) {
            now.set(1000 + t);
            m.onEvent(new PointerEvent(t, t / 2.0, 1000 + t));
            m.tick();
        }
        assertTrue(states.size() >= 9 && states.size() <= 10, "1.5 s at 150 ms: " + states.size());
        for (int i = 1; i < states.size(); i++) {
            assertTrue(states.get(i).timeMillis() - states.get(i - 1).timeMillis() >= 150, "spacing");
        }
    }

    @Test
    void miss_sendsAFreshStateAtOnce_butAtMostOnePerMissInterval() {
        PredictorManager<PointerEvent> m = PredictorManager.builder(KalmanPredictor.create(), sink).clock(now::get)
                .stateInterval(Duration.ofMillis(150)).missStateInterval(Duration.ofMillis(20)).build();
        m.onEvent(new PointerEvent(10, 10, 1000));
        m.tick();
        assertEquals(1, states.size(), "the first periodic state");
        // The pointer moves on; 30 ms later a request misses: the state goes out now, not at 1150.
        now.set(1030);
        m.onEvent(new PointerEvent(40, 10, 1030));
        m.onMiss();
        assertEquals(2, states.size(), "a miss sends at once");
        assertEquals(1030, states.get(1).timeMillis());
        // A burst of misses within 20 ms costs nothing more, even with the pointer moving.
        for (int t = 1031; t < 1050; t++) {
            now.set(t);
            m.onEvent(new PointerEvent(t - 990, 10, t));
            m.onMiss();
        }
        assertEquals(2, states.size(), "rate-limited to one per missStateInterval");
        now.set(1050);
        m.onEvent(new PointerEvent(60, 10, 1050));
        m.onMiss();
        assertEquals(3, states.size());
    }

    @Test
    void miss_insideTheWindow_isSentWhenTheWindowEnds_byTheScheduler() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (PredictorManager<PointerEvent> m = PredictorManager.builder(KalmanPredictor.create(), sink)
                .clock(now::get).scheduler(scheduler).stateInterval(Duration.ofHours(1))
                .missStateInterval(Duration.ofMillis(20)).build()) {
            m.onEvent(new PointerEvent(10, 10, 1000));
            m.tick();
            now.set(1005);
            m.onEvent(new PointerEvent(400, 10, 1005));
            m.onMiss();
            m.onMiss();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (sentStates() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertEquals(2, sentStates(), "the miss's state is deferred to the window's end, not dropped");
            Thread.sleep(60);
            assertEquals(2, sentStates(), "two misses in one window cost one state");
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void miss_insideTheWindow_isSentByTheNextTickAfterIt_withoutAScheduler() {
        PredictorManager<PointerEvent> m = PredictorManager.builder(KalmanPredictor.create(), sink).clock(now::get)
                .stateInterval(Duration.ofMillis(150)).missStateInterval(Duration.ofMillis(20)).build();
        m.onEvent(new PointerEvent(10, 10, 1000));
        m.tick();
        now.set(1005);
        m.onEvent(new PointerEvent(400, 10, 1005));
        m.onMiss();
        assertEquals(1, states.size(), "inside the window");
        now.set(1010);
        m.tick();
        assertEquals(1, states.size(), "still inside the window");
        now.set(1020);
        m.tick();
        assertEquals(2, states.size(), "sent at the window's end, long before the periodic state at 1150");
        assertEquals(1020, states.get(1).timeMillis());
        now.set(1045);
        m.tick();
        assertEquals(2, states.size(), "nothing pending any more: back to the 150 ms interval");
    }

    private int sentStates() {
        synchronized (sink) {
            return states.size();
        }
    }

    @Test
    void miss_withAnUnchangedState_sendsNothing() {
        PredictorManager<PointerEvent> m = manager(constantPredictor());
        m.tick();
        now.addAndGet(100);
        m.onMiss();
        assertEquals(1, states.size(), "the server already has this state");
    }

    @Test
    void unchangedState_isNotResent_untilResendRequested() {
        PredictorManager<PointerEvent> m = manager(constantPredictor());
        for (int i = 0; i < 5; i++) {
            m.tick();
            now.addAndGet(200);
        }
        assertEquals(1, states.size());
        m.resend();
        m.tick();
        assertEquals(2, states.size());
    }

    @Test
    void rateReports_measureBytesPerSecondOverTheInterval() {
        PredictorManager<PointerEvent> m = manager(KalmanPredictor.create());
        m.tick();                       // opens the first window at t=1000
        now.set(1250);
        m.recordReceived(50_000);
        m.tick();
        assertEquals(0, rates.size(), "not due before 500 ms");
        now.set(1500);
        m.recordReceived(50_000);
        m.tick();
        assertEquals(1, rates.size());
        assertEquals(200_000.0, rates.get(0).bytesPerSecond(), 1e-9);
        assertEquals(1500, rates.get(0).timeMillis());
    }

    @Test
    void rateReports_carryTheNextSeq_untilANewSessionStarts() {
        PredictorManager<PointerEvent> m = manager(KalmanPredictor.create());
        m.tick();
        now.set(1500);
        m.tick();
        assertFalse(rates.get(0).hasNextSeq(), "no frame yet: nothing to say");
        m.recordReceived(1_000, 7);
        m.recordReceived(1_000, 8);
        now.set(2000);
        m.tick();
        assertEquals(9, rates.get(1).nextSeq(), "one past the last frame counted");
        m.resend();
        m.tick();
        now.set(2500);
        m.tick();
        assertEquals(3, rates.size());
        assertFalse(rates.get(2).hasNextSeq(), "a new session's numbers start afresh");
    }

    @Test
    void throwingPredictor_isContained() {
        ClientPredictor<PointerEvent> broken = new ClientPredictor<>() {
            @Override
            public void onEvent(PointerEvent event) {
                throw new IllegalStateException("bug");
            }

            @Override
            public JsonNode state(long nowMillis) {
                throw new IllegalStateException("bug");
            }
        };
        PredictorManager<PointerEvent> m = manager(broken);
        m.onEvent(new PointerEvent(1, 1, 1));
        m.tick();
        assertEquals(0, states.size());
    }

    @Test
    void start_sendsOnTheScheduler_andCloseStopsIt() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try {
            CountDownLatch two = new CountDownLatch(2);
            AtomicLong clock = new AtomicLong();
            ClientPredictor<PointerEvent> clockState = new ClientPredictor<>() {
                @Override
                public void onEvent(PointerEvent event) {
                }

                @Override
                public JsonNode state(long nowMillis) {
                    return JsonNodeFactory.instance.objectNode().put("t", nowMillis);
                }
            };
            PredictorManager<PointerEvent> m = PredictorManager.builder(clockState,
                    new PredictorManager.Sink() {
                        @Override
                        public void sendState(PredictionState state) {
                            two.countDown();
                        }

                        @Override
                        public void sendRate(RateReport report) {
                        }
                    }).clock(() -> clock.addAndGet(200)).stateInterval(Duration.ofMillis(5)).scheduler(scheduler).build();
            m.start();
            m.onEvent(new PointerEvent(1, 1, 0));
            assertTrue(two.await(10, TimeUnit.SECONDS));
            m.close();
            long sent = m.statesSent();
            m.tick();
            assertEquals(sent, m.statesSent(), "nothing is sent after close");
        } finally {
            scheduler.shutdownNow();
        }
    }

    private int sentRates() {
        synchronized (sink) {
            return rates.size();
        }
    }

    /** Waits up to five seconds for {@code count} of something the scheduler sends. */
    private static void awaitCount(java.util.function.IntSupplier sent, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (sent.getAsInt() < count && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
    }

    @Test
    void rateReport_checkedEarly_goesWhenTheIntervalHasPassed_notAPeriodLater() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (PredictorManager<PointerEvent> m = PredictorManager.builder(KalmanPredictor.create(), sink)
                .clock(now::get).scheduler(scheduler).stateInterval(Duration.ofHours(1))
                .rateInterval(Duration.ofMillis(500)).build()) {
            m.tick(); // opens the window at 1000
            m.recordReceived(50_000);
            now.set(1499); // a fixed-rate tick a millisecond ahead of the clock
            m.tick();
            assertEquals(0, sentRates(), "not due yet");
            now.set(1500);
            awaitCount(this::sentRates, 1);
            assertEquals(1, sentRates(), "checked again once the interval ended, with no further tick");
            synchronized (sink) {
                assertEquals(1500, rates.get(0).timeMillis());
                assertEquals(100_000.0, rates.get(0).bytesPerSecond(), 1e-9);
            }
        } finally {
            scheduler.shutdownNow();
        }
    }

    @Test
    void state_checkedEarly_goesWhenTheIntervalHasPassed_andNeverSooner() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        try (PredictorManager<PointerEvent> m = PredictorManager.builder(KalmanPredictor.create(), sink)
                .clock(now::get).scheduler(scheduler).stateInterval(Duration.ofMillis(150))
                .rateInterval(Duration.ofHours(1)).build()) {
            m.onEvent(new PointerEvent(10, 10, 1000));
            m.tick();
            assertEquals(1, sentStates());
            m.onEvent(new PointerEvent(400, 10, 1100));
            now.set(1149);
            m.tick();
            Thread.sleep(20); // the re-check runs, and must still find the interval unfinished
            assertEquals(1, sentStates(), "149 ms after the last state is too soon");
            now.set(1150);
            awaitCount(this::sentStates, 2);
            assertEquals(2, sentStates(), "sent at the interval's end, not at the next period's tick");
            synchronized (sink) {
                assertEquals(1150, states.get(1).timeMillis());
            }
        } finally {
            scheduler.shutdownNow();
        }
    }
}
