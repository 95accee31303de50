package dev.khameleon.loadtest.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.Horizons;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;

import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The application the loopback load tools serve: {@link #N} requests of {@link #BLOCKS} synthetic
 * blocks of {@link #BLOCK_SIZE} bytes, mounted at {@code "/" + APP}, and the server settings they share.
 */
final class LoadApp {
    static final int N = 10_000;
    static final int BLOCKS = 8;
    static final int BLOCK_SIZE = 4096;
    /** The cache every load client announces in its hello. */
    static final int CACHE = 1000;
    static final long[] HORIZONS = Horizons.defaults().toArray();
    static final String APP = "load";
    /** Bytes of one block frame on the wire (header and payload). */
    static final int FRAME_BYTES = BlockFrame.HEADER_LENGTH + BLOCK_SIZE;

    private LoadApp() {
    }

    /**
     * Blocks made on demand from one shared payload: no memory per block, no backend cost; fetched
     * on the event loop if {@code immediately} (see {@link BlockSource#fetchesImmediately()}).
     */
    static BlockSource syntheticSource(boolean immediately) {
        return syntheticSource(N, immediately);
    }

    /** As {@link #syntheticSource(boolean)}, with {@code requests} requests. */
    static BlockSource syntheticSource(int requests, boolean immediately) {
        byte[] payload = new byte[BLOCK_SIZE];
        new SplittableRandom(1).nextBytes(payload);
        return new BlockSource() {
            @Override
            public boolean fetchesImmediately() {
                return immediately;
            }

            @Override
            public int requestCount() {
                return requests;
            }

            @Override
            public int blockSize() {
                return BLOCK_SIZE;
            }

            @Override
            public int blockCount(int requestId) {
                return BLOCKS;
            }

            @Override
            public CompletionStage<Block> fetch(int requestId, int blockIndex) {
                return CompletableFuture.completedFuture(Block.wrap(requestId, blockIndex, BLOCKS, payload, 0));
            }

            @Override
            public void prefetch(ScheduleChunk chunk) {
            }
        };
    }

    /**
     * A server on 127.0.0.1 and a free port serving the synthetic application with {@code predictor},
     * every session paced at exactly {@code rate} bytes/s (the load clients send no rate reports), two
     * scheduler and two fetch threads, and otherwise the defaults: callers lift limits themselves.
     */
    static KhameleonServer.Builder server(ServerPredictor predictor, double rate) {
        return server(predictor, rate, true);
    }

    /** As {@link #server(ServerPredictor, double)}, choosing where the server fetches (see {@link #syntheticSource}). */
    static KhameleonServer.Builder server(ServerPredictor predictor, double rate, boolean inlineFetch) {
        return server(N, predictor, rate, inlineFetch);
    }

    /** As {@link #server(ServerPredictor, double, boolean)} for {@code workload}'s requests and predictor. */
    static KhameleonServer.Builder server(LoadWorkload workload, double rate, boolean inlineFetch) {
        return server(workload.requests(), workload.predictor(), rate, inlineFetch);
    }

    private static KhameleonServer.Builder server(int requests, ServerPredictor predictor, double rate,
                                                  boolean inlineFetch) {
        return KhameleonServer.builder().host("127.0.0.1").port(0).seed(1)
                .fixedBytesPerSecond(rate).pacingGain(1.0).schedulerThreads(2).fetchThreads(2)
                .application(Application.builder(APP).blockSource(syntheticSource(requests, inlineFetch)).predictor(predictor)
                        .horizons(HORIZONS).build());
    }
}
