package dev.khameleon.bench.sim;

import java.util.HashSet;
import java.util.Set;

/**
 * The paper's request/response baselines: a request that misses the LRU cache is sent to the
 * server, which queues its response on the shared downlink behind earlier ones (no
 * cancellation: that queue is the congestion the paper describes); the response lands in the
 * cache and answers every pending request for it. Variants:
 * <ul>
 *   <li>{@code baseline}: full responses, no prefetch;</li>
 *   <li>{@code progressive}: only the first block of each response, no prefetch;</li>
 *   <li>{@code acc-A-K}: full responses, and on each request a predictor of accuracy {@code A}
 *       prefetches {@code K} responses — the true next {@code K} distinct requests of the trace,
 *       each replaced by a uniformly random wrong one with probability {@code 1 − A}.</li>
 * </ul>
 * A request already in flight is not sent again. Single-use, single-threaded.
 */
final class RequestResponseSystem implements SimSystem {
    private final boolean firstBlockOnly;
    private final double accuracy;
    private final int prefetch;
    private SimContext ctx;
    private LruCache cache;
    private final Set<Integer> inFlight = new HashSet<>();
    private long responseBytes;
    private double responseUtility;

    RequestResponseSystem(boolean firstBlockOnly, double accuracy, int prefetch) {
        this.firstBlockOnly = firstBlockOnly;
        this.accuracy = accuracy;
        this.prefetch = prefetch;
    }

    @Override
    public void start(SimContext context) {
        this.ctx = context;
        this.cache = new LruCache(context.cacheBytes());
        Workload w = context.workload();
        this.responseBytes = firstBlockOnly ? Math.min(w.blockBytes(), w.imageBytes()) : w.imageBytes();
        this.responseUtility = firstBlockOnly ? w.utilityOf(1) : 1.0;
    }

    @Override
    public void onRequest(int seq, int requestId) {
        if (cache.touch(requestId)) {
            ctx.recorder().available(requestId, responseUtility, responseBytes);
        } else {
            fetch(requestId);
        }
        if (prefetch > 0) {
            prefetchAfter(seq, requestId);
        }
    }

    @Override
    public boolean hasAnswer(int requestId) {
        return cache.contains(requestId);
    }

    private void prefetchAfter(int seq, int requestId) {
        int[] requests = ctx.requests();
        int n = ctx.workload().requestCount();
        int found = 0;
        int last = requestId;
        for (int k = seq + 1; k < requests.length && found < prefetch; k++) {
            if (requests[k] == last) {
                continue;
            }
            last = requests[k];
            found++;
            int guess = requests[k];
            if (ctx.random().nextDouble() >= accuracy && n > 1) {
                int wrong = ctx.random().nextInt(n - 1);
                guess = wrong >= guess ? wrong + 1 : wrong;
            }
            if (!cache.touch(guess)) {
                fetch(guess);
            }
        }
    }

    private void fetch(int requestId) {
        if (!inFlight.add(requestId)) {
            return;
        }
        long oneWay = ctx.oneWayNanos();
        long now = ctx.loop().nowNanos();
        long sent = ctx.link().transmit(now + oneWay, responseBytes);
        ctx.loop().at(sent + oneWay, () -> arrive(requestId));
    }

    private void arrive(int requestId) {
        inFlight.remove(requestId);
        cache.put(requestId, responseBytes);
        ctx.recorder().received(requestId, responseBytes);
        ctx.recorder().available(requestId, responseUtility, responseBytes);
    }
}
