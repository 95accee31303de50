package dev.khameleon.simulator;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The paper's request/response baselines: a request that misses the LRU cache is sent to the
 * server, which sends responses one after the other on the shared downlink; a demand fetch waits
 * behind earlier demand fetches (no cancellation: that queue is the congestion the paper
 * describes); the response lands in the cache and answers every pending request for it. Variants:
 * <ul>
 *   <li>{@code baseline}: full responses, no prefetch;</li>
 *   <li>{@code progressive}: only the first block of each response, no prefetch;</li>
 *   <li>{@code acc-A-K}: full responses, and on each <em>new</em> request (a cell other than the
 *       previous request's; the repeats of per-sample requests are not new) a predictor of
 *       accuracy {@code A} guesses {@code K} requests once — the true next {@code K} distinct
 *       requests of the trace, each replaced by a uniformly drawn other cell with probability
 *       {@code 1 − A} — and the client asks for the guesses it does not hold with the demand
 *       fetch. The server sends prefetches only when no demand fetch waits, and a new request
 *       cancels the prefetches of earlier ones that have not started (the paper's ACC prefetches
 *       {@code K} predicted requests per request; a guess about a past position is stale).</li>
 * </ul>
 * The client does not ask again for a response it has demanded and not yet received; the server
 * does not queue a response it is already sending or holds queued, and a queued prefetch that is
 * then demanded moves to the demand queue. Single-use, single-threaded.
 */
final class RequestResponseSystem implements SimSystem {
    private static final int[] NO_GUESSES = {};
    private final boolean firstBlockOnly;
    private final double accuracy;
    private final int prefetch;
    private SimContext ctx;
    private LruCache cache;
    /** Client side: demanded and not yet received. */
    private final Set<Integer> awaited = new HashSet<>();
    /** Server side: queued or on the link. */
    private final Set<Integer> queued = new HashSet<>();
    private final ArrayDeque<Integer> demandQueue = new ArrayDeque<>();
    private final ArrayDeque<Integer> prefetchQueue = new ArrayDeque<>();
    private boolean sending;
    private int lastRequestId = -1;
    private long responseBytes;
    private int responseBlocks;
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
        this.responseBlocks = firstBlockOnly ? 1 : w.blocksPerResponse();
        this.responseUtility = w.utilityOf(responseBlocks);
    }

    @Override
    public void onRequest(int seq, int requestId) {
        boolean isNew = requestId != lastRequestId;
        lastRequestId = requestId;
        boolean hit = cache.touch(requestId);
        if (hit) {
            ctx.recorder().available(requestId, responseUtility, responseBytes);
        }
        boolean demand = !hit && awaited.add(requestId);
        int[] guesses = prefetch > 0 && isNew ? guessAfter(seq, requestId) : NO_GUESSES;
        if (demand || guesses.length > 0) {
            ctx.loop().at(ctx.loop().nowNanos() + ctx.oneWayNanos(),
                    () -> serverReceives(demand ? requestId : -1, guesses, isNew));
        }
    }

    @Override
    public int answerBlocks(int requestId) {
        return cache.contains(requestId) ? responseBlocks : 0;
    }

    /** The next {@code prefetch} distinct requests after {@code seq}, each wrong with probability 1 − A, minus those held. */
    private int[] guessAfter(int seq, int requestId) {
        int[] requests = ctx.requests();
        int n = ctx.workload().requestCount();
        int[] guesses = new int[prefetch];
        int found = 0;
        int last = requestId;
        for (int k = seq + 1; k < requests.length && found < prefetch; k++) {
            if (requests[k] == last) {
                continue;
            }
            last = requests[k];
            int guess = requests[k];
            if (ctx.random().nextDouble() >= accuracy && n > 1) {
                int wrong = ctx.random().nextInt(n - 1);
                guess = wrong >= guess ? wrong + 1 : wrong;
            }
            if (!cache.touch(guess) && !awaited.contains(guess)) {
                guesses[found++] = guess;
            }
        }
        return Arrays.copyOf(guesses, found);
    }

    /** A request's message reaches the server: a demand fetch (or -1) and its prefetches. */
    private void serverReceives(int demand, int[] guesses, boolean isNew) {
        if (isNew) {
            for (int id : prefetchQueue) {
                queued.remove(id);
            }
            prefetchQueue.clear();
        }
        if (demand >= 0) {
            if (prefetchQueue.remove(demand)) {
                queued.remove(demand);
            }
            if (queued.add(demand)) {
                demandQueue.add(demand);
            }
        }
        for (int id : guesses) {
            if (queued.add(id)) {
                prefetchQueue.add(id);
            }
        }
        pump();
    }

    /** Starts the next response on the downlink when it is free: demand fetches first. */
    private void pump() {
        if (sending) {
            return;
        }
        Integer next = demandQueue.poll();
        if (next == null) {
            next = prefetchQueue.poll();
        }
        if (next == null) {
            return;
        }
        int requestId = next;
        sending = true;
        long sent = ctx.link().transmit(ctx.loop().nowNanos(), responseBytes);
        ctx.loop().at(sent, () -> {
            sending = false;
            queued.remove(requestId);
            pump();
        });
        ctx.loop().at(sent + ctx.oneWayNanos(), () -> arrive(requestId));
    }

    private void arrive(int requestId) {
        awaited.remove(requestId);
        cache.put(requestId, responseBytes);
        ctx.recorder().received(requestId, responseBytes);
        ctx.recorder().available(requestId, responseUtility, responseBytes);
    }
}
