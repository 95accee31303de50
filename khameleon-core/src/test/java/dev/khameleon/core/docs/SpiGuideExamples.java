package dev.khameleon.core.docs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Bindings;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.Rect;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.core.spi.RequestScope;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.spi.UtilityFunction;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.IntFunction;

/**
 * The examples of {@code docs/spi-guide.md}. The guide quotes the regions between
 * {@code tag::} and {@code end::} markers verbatim; {@code SpiGuideSyncTest} fails when the
 * two drift apart, and {@code SpiGuideExamplesTest} runs each example against its SPI's
 * contract test kit.
 */
final class SpiGuideExamples {
    private SpiGuideExamples() {
    }

    // tag::encoder[]
    /**
     * Encodes a time series progressively: the first blocks hold every 64th point, later
     * blocks fill in every 32nd, 16th, … so any prefix can be drawn as a coarser line.
     */
    static final class SeriesEncoder implements ProgressiveEncoder<double[]> {
        private final int blockSize;

        SeriesEncoder(int blockSize) {
            if (blockSize < 8 || blockSize % 8 != 0) {
                throw new IllegalArgumentException("blockSize must be a positive multiple of 8, was " + blockSize);
            }
            this.blockSize = blockSize;
        }

        @Override
        public int blockSize() {
            return blockSize;
        }

        @Override
        public List<Block> encode(int requestId, double[] series) {
            // Each value travels with its position so a prefix can be plotted at once.
            ByteBuffer out = ByteBuffer.allocate(series.length * 12);
            boolean[] sent = new boolean[series.length];
            for (int stride = 64; stride >= 1; stride /= 2) {
                for (int i = 0; i < series.length; i += stride) {
                    if (!sent[i]) {
                        sent[i] = true;
                        out.putInt(i).putDouble(series[i]);
                    }
                }
            }
            return ProgressiveEncoder.split(requestId, out.array(), blockSize);
        }
    }
    // end::encoder[]

    // tag::utility[]
    /** Quality measured offline: the fraction of a chart's pixels right after each prefix. */
    static UtilityFunction measuredChartUtility() {
        return UtilityFunction.tabulated(
                new double[] {0.125, 0.25, 0.5, 1.0},
                new double[] {0.70, 0.85, 0.95, 1.0});
    }
    // end::utility[]

    // tag::client-predictor[]
    /** Client half of a "the user stays where they are" predictor: the state is the last hover. */
    static final class LastHoverPredictor implements ClientPredictor<Integer> {
        private int lastRequest = -1;

        @Override
        public void onEvent(Integer hoveredRequest) {
            lastRequest = hoveredRequest;
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("request", lastRequest);
        }
    }
    // end::client-predictor[]

    // tag::server-predictor[]
    /**
     * Server half for a list of items: the user is likely to move to a neighbour of the last
     * item, more so the further ahead we look. Decodes {@code {"request": id}}; the client half's
     * {@code -1} (nothing hovered yet) makes every item equally likely.
     */
    static final class NeighbourPredictor implements ServerPredictor {
        private final int requestCount;
        private final long[] horizonsMillis;

        NeighbourPredictor(int requestCount, long... horizonsMillis) {
            this.requestCount = requestCount;
            this.horizonsMillis = horizonsMillis.clone();
        }

        @Override
        public Distribution decode(JsonNode state) {
            JsonNode id = state == null ? null : state.get("request");
            if (id == null || !id.isInt() || id.intValue() < -1 || id.intValue() >= requestCount) {
                throw new IllegalArgumentException("state must be {\"request\": id} with id in [-1, "
                        + requestCount + "), was " + state);
            }
            int last = id.intValue();
            if (last == -1) {
                return Distribution.uniform(requestCount, horizonsMillis);   // no hover yet
            }
            Distribution.Builder d = Distribution.builder(requestCount, horizonsMillis);
            for (int j = 0; j < horizonsMillis.length; j++) {
                double stay = 0.6 / (j + 1);
                double explicit = stay;
                d.explicit(j, last, stay);
                for (int next : new int[] {last - 1, last + 1}) {
                    if (next >= 0 && next < requestCount) {
                        d.explicit(j, next, 0.15);
                        explicit += 0.15;
                    }
                }
                // Whatever is left is spread evenly over every other item.
                d.residual(j, requestCount > 3 ? 1.0 - explicit : 0.0);
            }
            return d.build();
        }
    }
    // end::server-predictor[]

    // tag::layout[]
    /** A vertical list of {@code count} rows of {@code rowHeight} pixels, {@code width} wide. */
    record ListLayout(int count, double width, double rowHeight) implements Layout {
        ListLayout {
            if (count < 1 || !(width > 0) || !(rowHeight > 0)) {
                throw new IllegalArgumentException("bad list geometry: " + count + " rows of " + width + " x " + rowHeight);
            }
        }

        @Override
        public int requestCount() {
            return count;
        }

        @Override
        public int requestAt(double x, double y) {
            if (!(x >= 0 && x < width && y >= 0)) {
                return -1;
            }
            double row = Math.floor(y / rowHeight);
            return row < count ? (int) row : -1;
        }

        @Override
        public Rect bounds(int requestId) {
            return new Rect(0, requestId * rowHeight, width, rowHeight);
        }
    }
    // end::layout[]

    // tag::block-source[]
    /**
     * Encodes each response the first time one of its blocks is asked for, on the given
     * executor, and keeps it. Block counts must be known up front: the scheduler plans with them.
     */
    static final class EncodingBlockSource<R> implements BlockSource {
        private final ProgressiveEncoder<R> encoder;
        private final IntFunction<R> loadResponse;
        private final int[] blockCounts;
        private final Executor executor;
        private final ConcurrentHashMap<Integer, CompletableFuture<List<Block>>> encoded = new ConcurrentHashMap<>();

        EncodingBlockSource(ProgressiveEncoder<R> encoder, IntFunction<R> loadResponse, int[] blockCounts,
                            Executor executor) {
            this.encoder = encoder;
            this.loadResponse = loadResponse;
            this.blockCounts = blockCounts.clone();
            this.executor = executor;
        }

        @Override
        public int requestCount() {
            return blockCounts.length;
        }

        @Override
        public int blockSize() {
            return encoder.blockSize();
        }

        @Override
        public int blockCount(int requestId) {
            return blockCounts[requestId];
        }

        @Override
        public CompletionStage<Block> fetch(int requestId, int blockIndex) {
            if (requestId < 0 || requestId >= blockCounts.length
                    || blockIndex < 0 || blockIndex >= blockCounts[requestId]) {
                return CompletableFuture.failedFuture(new IllegalArgumentException(
                        "no block " + blockIndex + " of request " + requestId));
            }
            return encoded
                    .computeIfAbsent(requestId, id -> CompletableFuture.supplyAsync(
                            () -> encoder.encode(id, loadResponse.apply(id)), executor))
                    .thenApply(blocks -> blocks.get(blockIndex));
        }
    }
    // end::block-source[]

    // tag::lazy-block-source[]
    /**
     * Encodes each response the first time one of its blocks is asked for, like
     * EncodingBlockSource, but without knowing the block counts up front: every response has at
     * most maxBlocks blocks, and the blocks tell the exact count once encoded.
     */
    static final class LazyEncodingBlockSource<R> implements BlockSource {
        private final ProgressiveEncoder<R> encoder;
        private final IntFunction<R> loadResponse;
        private final int requestCount;
        private final int maxBlocks;
        private final Executor executor;
        private final ConcurrentHashMap<Integer, CompletableFuture<List<Block>>> encoded = new ConcurrentHashMap<>();

        LazyEncodingBlockSource(ProgressiveEncoder<R> encoder, IntFunction<R> loadResponse, int requestCount,
                                int maxBlocks, Executor executor) {
            this.encoder = encoder;
            this.loadResponse = loadResponse;
            this.requestCount = requestCount;
            this.maxBlocks = maxBlocks;
            this.executor = executor;
        }

        @Override
        public int requestCount() {
            return requestCount;
        }

        @Override
        public int blockSize() {
            return encoder.blockSize();
        }

        @Override
        public int blockCount(int requestId) {
            return maxBlocks;
        }

        @Override
        public boolean isBlockCountBound(int requestId) {
            return true;
        }

        @Override
        public CompletionStage<Block> fetch(int requestId, int blockIndex) {
            if (requestId < 0 || requestId >= requestCount || blockIndex < 0 || blockIndex >= maxBlocks) {
                return CompletableFuture.failedFuture(new IllegalArgumentException(
                        "no block " + blockIndex + " of request " + requestId));
            }
            return encoded
                    .computeIfAbsent(requestId, id -> CompletableFuture.supplyAsync(() -> {
                        List<Block> blocks = encoder.encode(id, loadResponse.apply(id));
                        if (blocks.size() > maxBlocks) {
                            throw new IllegalStateException("request " + id + " encodes to " + blocks.size()
                                    + " blocks, more than the bound " + maxBlocks);
                        }
                        return blocks;
                    }, executor))
                    .thenApply(blocks -> {
                        if (blockIndex >= blocks.size()) {
                            throw new IllegalArgumentException("request " + requestId + " has only "
                                    + blocks.size() + " blocks");
                        }
                        return blocks.get(blockIndex);
                    });
        }
    }
    // end::lazy-block-source[]

    // tag::request-scope[]
    /**
     * Linked histograms, Falcon style: {@code views} histograms of {@code bins} bins; request
     * {@code view * bins + bin} is one bin of one view. Brushing bins {@code lo..hi} of one view
     * filters every other view, so the scope is the brush, {@code {"view": v, "lo": a, "hi": b}},
     * or {@code {}} for none. The brushed view and every view without a brush elsewhere keep
     * their default, unfiltered content.
     */
    static final class BrushScope implements RequestScope {
        private final int views;
        private final int bins;

        BrushScope(int views, int bins) {
            this.views = views;
            this.bins = bins;
        }

        @Override
        public Bindings decode(JsonNode scope) {
            if (scope == null || !scope.isObject()) {
                throw new IllegalArgumentException("scope must be an object, was " + scope);
            }
            if (scope.isEmpty()) {
                return Bindings.none();
            }
            int view = field(scope, "view", views);
            int lo = field(scope, "lo", bins);
            int hi = field(scope, "hi", bins);
            if (lo > hi) {
                throw new IllegalArgumentException("brush lo " + lo + " > hi " + hi);
            }
            Bindings.Builder b = Bindings.builder();
            for (int other = 0; other < views; other++) {
                for (int bin = 0; other != view && bin < bins; bin++) {
                    int id = other * bins + bin;
                    b.bind(id, contentKey(id, view, lo, hi));
                }
            }
            return b.build();
        }

        /** The content "request {@code id} under the brush lo..hi on view": the block source decodes it. */
        long contentKey(int id, int view, int lo, int hi) {
            long brush = ((long) view * bins + lo) * bins + hi;
            return (long) views * bins * (brush + 1) + id;
        }

        private static int field(JsonNode scope, String name, int bound) {
            JsonNode v = scope.get(name);
            if (v == null || !v.isInt() || v.intValue() < 0 || v.intValue() >= bound) {
                throw new IllegalArgumentException(name + " must be an integer in [0, " + bound + "), was " + v);
            }
            return v.intValue();
        }
    }
    // end::request-scope[]
}
