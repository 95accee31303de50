package dev.khameleon.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shared scheduler queue on real scheduler threads: addresses take turns (by the time their jobs
 * take, see {@link FairJobQueueTest} for the accounting), re-plans run before an address's jobs that
 * only plan ahead, first come first served within each kind; a queued job can be withdrawn and its
 * replacement keeps its turn; the queue stays within the session cap.
 */
class SchedulerQueueTest {
    private final KhameleonServer server = KhameleonServer.builder().seed(1).schedulerThreads(1).maxSessions(4)
            .application(Application.builder("app").blockSource(TestApps.inMemory(4, 1, 16)).build()).build();
    private final ServerRuntime runtime = server.runtime();
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch busy = new CountDownLatch(1);

    @AfterEach
    void tearDown() {
        release.countDown();
        server.close();
    }

    /** Occupies the only scheduler thread until {@link #release} opens. */
    private SchedulerTask occupy() throws InterruptedException {
        SchedulerTask t = runtime.schedule(true, () -> {
            busy.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(busy.await(10, TimeUnit.SECONDS), "the scheduler thread started");
        return t;
    }

    @Test
    void replans_runBeforeQueuedPlanAheadJobs_inArrivalOrderWithinEachKind() throws InterruptedException {
        occupy();
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(4);
        for (String name : List.of("ahead-1", "replan-1", "ahead-2", "replan-2")) {
            runtime.schedule(name.startsWith("replan"), () -> {
                ran.add(name);
                done.countDown();
            });
        }
        release.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("replan-1", "replan-2", "ahead-1", "ahead-2"), ran);
    }

    /**
     * Regression: sixty sessions from one address queued sixty re-plans ahead of a bystander's one,
     * which then waited for all of them. Jobs now take turns by address.
     */
    @Test
    void jobsOfManySessionsFromOneAddress_takeTurnsWithAnotherAddresss() throws InterruptedException {
        occupy();
        Object crowd = "10.0.0.1";
        Object bystander = "10.0.0.2";
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(5);
        for (String name : List.of("crowd-1", "crowd-2", "crowd-3", "crowd-4")) {
            runtime.schedule(true, runtime.nextSchedulerOrder(), runtime.openFlow(crowd), t -> {
                ran.add(name);
                done.countDown();
            });
        }
        runtime.schedule(true, runtime.nextSchedulerOrder(), runtime.openFlow(bystander), t -> {
            ran.add("bystander");
            done.countDown();
        });
        assertEquals(4, runtime.waitingJobs(crowd));
        assertEquals(1, runtime.waitingJobs(bystander));
        release.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("crowd-1", "bystander", "crowd-2", "crowd-3", "crowd-4"), ran);
        assertEquals(0, runtime.waitingJobs(crowd), "every job that ran left the count");
    }

    /**
     * Regression: sixty sessions from one address sending states kept the queue full of re-plans,
     * which all went before every other session's plan-ahead jobs: the bystanders' senders ran out
     * of planned blocks (the soak's healthy throughput fell to a tenth). Addresses now take turns
     * whatever the kind: the bystander's plan-ahead job waits for one of the crowd's re-plans.
     */
    @Test
    void aStreamOfReplansFromOneAddress_letsAnotherAddresssPlanAheadJobIn() throws InterruptedException {
        occupy();
        Object crowd = "10.0.0.1";
        Object bystander = "10.0.0.2";
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(11);
        for (int i = 1; i <= 10; i++) {
            String name = "crowd-replan-" + i;
            runtime.schedule(true, runtime.nextSchedulerOrder(), runtime.openFlow(crowd), t -> {
                ran.add(name);
                done.countDown();
            });
        }
        runtime.schedule(false, runtime.nextSchedulerOrder(), runtime.openFlow(bystander), t -> {
            ran.add("bystander-ahead");
            done.countDown();
        });
        release.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(1, ran.indexOf("bystander-ahead"), "after the crowd's first re-plan, not its tenth: " + ran);
    }

    /**
     * One session's stream of re-plans lets its address's plan-ahead job in after
     * {@value SchedulerTask#REPLANS_PER_PLAN_AHEAD} of them.
     */
    @Test
    void aStreamOfReplans_letsItsOwnAddresssPlanAheadJobIn() throws InterruptedException {
        occupy();
        Object address = "10.0.0.1";
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(11);
        FairJobQueue.Flow ahead = runtime.openFlow(address);
        for (int i = 1; i <= 10; i++) {
            String name = "replan-" + i;
            runtime.schedule(true, runtime.nextSchedulerOrder(), runtime.openFlow(address), t -> {
                ran.add(name);
                done.countDown();
            });
        }
        runtime.schedule(false, runtime.nextSchedulerOrder(), ahead, t -> {
            ran.add("ahead");
            done.countDown();
        });
        release.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(SchedulerTask.REPLANS_PER_PLAN_AHEAD, ran.indexOf("ahead"), ran.toString());
    }

    @Test
    void aWithdrawnJob_leavesItsAddresssCount() throws InterruptedException {
        occupy();
        Object address = "10.0.0.3";
        SchedulerTask t = runtime.schedule(false, runtime.nextSchedulerOrder(), runtime.openFlow(address), x -> { });
        assertEquals(1, runtime.waitingJobs(address));
        assertTrue(runtime.withdraw(t));
        assertEquals(0, runtime.waitingJobs(address));
        assertFalse(runtime.withdraw(t), "withdrawn once");
    }

    @Test
    void aJobScheduledWithAWithdrawnJobsOrder_keepsThatTurn() throws InterruptedException {
        occupy();
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(3);
        SchedulerTask first = runtime.schedule(true, () -> ran.add("withdrawn"));
        runtime.schedule(true, () -> {
            ran.add("second");
            done.countDown();
        });
        runtime.schedule(false, () -> {
            ran.add("ahead");
            done.countDown();
        });
        assertTrue(runtime.withdraw(first));
        runtime.schedule(true, first.order(), () -> {
            ran.add("replacement");
            done.countDown();
        });
        release.countDown();
        assertTrue(done.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("replacement", "second", "ahead"), ran);
    }

    @Test
    void withdraw_removesAQueuedJobSoItNeverRuns_butNotARunningOne() throws InterruptedException {
        SchedulerTask running = occupy();
        List<String> ran = new CopyOnWriteArrayList<>();
        SchedulerTask ahead = runtime.schedule(false, () -> ran.add("ahead"));
        CountDownLatch after = new CountDownLatch(1);
        runtime.schedule(true, after::countDown);
        assertTrue(runtime.withdraw(ahead));
        assertFalse(runtime.withdraw(running), "a running job cannot be withdrawn");
        release.countDown();
        assertTrue(after.await(10, TimeUnit.SECONDS));
        assertEquals(List.of(), ran, "the withdrawn job never ran");
    }

    @Test
    void schedule_beyondTheSessionCapPlusSlack_isRejected() throws InterruptedException {
        occupy();
        for (int i = 0; i < 4 + 16; i++) {
            runtime.schedule(false, () -> { });
        }
        assertThrows(RejectedExecutionException.class, () -> runtime.schedule(true, () -> { }));
    }
}
