package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.testing.TestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The server-wide budget for scheduler state: each hello is charged its scheduler's estimated heap,
 * which grows with the application's request count, and one that would exceed the budget is
 * refused with 1013 instead of the server running out of memory.
 */
class SchedulerBudgetTest {
    /** Requests of the application: large enough that its schedulers, not their caches, fill the budget. */
    private static final int N = 20_000;
    private static final int C = 100;

    private KhameleonServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @SuppressWarnings("try") // a closes mid-body: that frees its share
    @Test
    void helloBeyondTheBudget_isRefusedWith1013_andAClosedSessionGivesItsShareBack() {
        long each = SchedulerFootprint.estimate(N, C);
        long budget = Math.max(1L << 20, 2 * each + each / 2); // room for two sessions, not three
        assertTrue(budget < 3 * each, "the test's budget holds two sessions only");
        server = KhameleonServer.builder().host("127.0.0.1").port(0).seed(3).maxSchedulerBytes(budget)
                .fixedBytesPerSecond(100_000)
                .application(Application.builder("test").blockSource(TestApps.inMemory(N, 1, 16)).build())
                .build().start();
        URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/test");
        try (TestClient a = TestClient.open(uri, "test", C); TestClient b = TestClient.open(uri, "test", C)) {
            assertEquals(2 * each, server.runtime().schedulerBytesInUse());
            try (TestClient c = TestClient.connect(uri)) {
                c.send(ControlMessage.Hello.of("test", C));
                ControlMessage.ErrorMessage e = c.awaitError();
                assertEquals("too_many_sessions", e.code());
                assertTrue(e.message().contains("bytes of scheduler state"), e.message());
                assertEquals(1013, c.awaitClose().status());
            }
            assertEquals(1, server.metrics().sessionsRejected());
            a.nextBlock();
            b.nextBlock();
            a.close();
            TestClient.await(() -> server.metrics().activeSessions() == 1, "the closed session frees its share");
            assertEquals(each, server.runtime().schedulerBytesInUse());
            try (TestClient d = TestClient.open(uri, "test", C)) {
                d.nextBlock();
            }
        }
    }

    @Test
    void estimate_growsWithRequestsUpToTheDenseLimitAndWithTheCache() {
        assertEquals(SchedulerFootprint.FIXED_BYTES, SchedulerFootprint.estimate(0, 0));
        assertEquals(22 * 65_536 + 2_000_000 + SchedulerFootprint.FIXED_BYTES, SchedulerFootprint.estimate(65_536, 5000));
        // Above the limit the scheduler's tables hold the touched requests only (issue 27).
        assertEquals(2_000_000 + SchedulerFootprint.FIXED_BYTES, SchedulerFootprint.estimate(1_000_000, 5000));
        assertEquals(16L * 1_000_000 + 2_000_000 + SchedulerFootprint.FIXED_BYTES,
                SchedulerFootprint.estimate(1_000_000, 5000, true), "per-request count tables are charged");
    }

    @Test
    void budgetOutsideItsRange_isRefusedNamingTheSetting() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KhameleonServer.builder().maxSchedulerBytes(1000));
        assertEquals("maxSchedulerBytes must be in [2^20, 2^50], was 1000", e.getMessage());
    }
}
