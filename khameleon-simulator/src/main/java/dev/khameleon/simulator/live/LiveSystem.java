package dev.khameleon.simulator.live;

import dev.khameleon.simulator.Recorder;
import dev.khameleon.simulator.SimContext;
import dev.khameleon.simulator.SimSystem;
import dev.khameleon.simulator.Workload;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;

/**
 * The real {@link KhameleonClient} as the system a replay drives: pointer samples go to its
 * predictor ({@link KhameleonClient#onEvent(double, double, long)}), requests to its cache
 * manager ({@link KhameleonClient#request}), and what the user gets goes to the
 * {@link Recorder} by the simulator's rules ({@code PushSystem}): at an upcall, at a hit (the
 * client judged block 0 present at registration, so latency 0), and after each block arrival
 * (the cache probed again for stale hover, and any prefix present reported as available).
 *
 * <p>Every method runs on the replay's one thread, which is also the client's upcall executor;
 * block arrivals are handed to it by a {@link dev.khameleon.testing.BlockFrameTap} on the client.
 */
final class LiveSystem implements SimSystem {
    private final KhameleonClient<PointerEvent> client;
    private final Recorder recorder;
    private final Workload workload;

    LiveSystem(KhameleonClient<PointerEvent> client, Recorder recorder, Workload workload) {
        this.client = client;
        this.recorder = recorder;
        this.workload = workload;
    }

    /** Nothing: the live run opens the client's session before the replay starts. */
    @Override
    public void start(SimContext context) {
    }

    @Override
    public void onPointer(double x, double y) {
        client.onEvent(x, y, System.currentTimeMillis());
    }

    @Override
    public void onRequest(int seq, int requestId) {
        boolean hit = client.request(requestId, response -> recorder.available(requestId, response.utility(),
                (long) response.blocks().size() * workload.blockBytes()));
        if (hit) {
            // The client's upcall comes as a later task on this thread; the hit is now.
            report(requestId, Math.max(1, client.cache().prefixLength(requestId)));
        }
    }

    /** A block of {@code requestId} is in the client's cache (after the tap saw the client handle it). */
    void arrived(int requestId) {
        recorder.received(requestId, workload.blockBytes());
        int prefix = client.cache().prefixLength(requestId);
        if (prefix > 0) {
            report(requestId, prefix);
        }
    }

    private void report(int requestId, int prefix) {
        recorder.available(requestId, workload.utilityOf(prefix), (long) prefix * workload.blockBytes());
    }

    @Override
    public int answerBlocks(int requestId) {
        return client.cache().prefixLength(requestId);
    }
}
