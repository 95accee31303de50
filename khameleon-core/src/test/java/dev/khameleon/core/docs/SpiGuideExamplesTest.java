package dev.khameleon.core.docs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.spi.Layout;
import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.spi.UtilityFunction;
import dev.khameleon.core.testkit.BlockSourceContract;
import dev.khameleon.core.testkit.LayoutContract;
import dev.khameleon.core.testkit.ProgressiveEncoderContract;
import dev.khameleon.core.testkit.ServerPredictorContract;
import dev.khameleon.core.testkit.UtilityFunctionContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every example of the SPI guide passes its SPI's contract kit and does what the guide says. */
class SpiGuideExamplesTest {

    static double[] series(int n, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] s = new double[n];
        for (int i = 0; i < n; i++) {
            s[i] = rnd.nextGaussian();
        }
        return s;
    }

    @Nested
    class Encoder extends ProgressiveEncoderContract<double[]> {
        @Override
        protected ProgressiveEncoder<double[]> encoder() {
            return new SpiGuideExamples.SeriesEncoder(96);
        }

        @Override
        protected List<double[]> sampleResponses() {
            return List.of(series(1, 1), series(100, 2), series(1000, 3));
        }
    }

    @Test
    void seriesEncoder_firstBlockHoldsTheCoarsestPoints() {
        List<Block> blocks = new SpiGuideExamples.SeriesEncoder(96).encode(0, series(1000, 4));
        ByteBuffer first = blocks.get(0).content();
        for (int k = 0; k < 8; k++) {
            assertEquals(k * 64, first.getInt(k * 12), "point " + k + " of the first block");
        }
    }

    @Nested
    class Utility extends UtilityFunctionContract {
        @Override
        protected UtilityFunction utility() {
            return SpiGuideExamples.measuredChartUtility();
        }
    }

    @Nested
    class Predictor extends ServerPredictorContract {
        @Override
        protected ServerPredictor predictor() {
            return new SpiGuideExamples.NeighbourPredictor(50, 50, 150, 250, 500);
        }

        @Override
        protected int requestCount() {
            return 50;
        }

        @Override
        protected List<JsonNode> validStates() {
            SpiGuideExamples.LastHoverPredictor client = new SpiGuideExamples.LastHoverPredictor();
            JsonNode noHoverYet = client.state(0);
            client.onEvent(0);
            JsonNode first = client.state(1);
            client.onEvent(49);
            return List.of(noHoverYet, first, client.state(10));
        }

        @Override
        protected List<JsonNode> invalidStates() {
            return List.of(JSON.createObjectNode().put("request", -2), JSON.createObjectNode().put("request", 50),
                    JSON.createObjectNode().put("request", "7"), JSON.createArrayNode(), JSON.nullNode());
        }
    }

    @Test
    void neighbourPredictor_beforeAnyHover_isUniform() {
        // The client half's first state may come before any hover; rejecting it would close the session.
        JsonNode noHoverYet = new SpiGuideExamples.LastHoverPredictor().state(0);
        Distribution d = new SpiGuideExamples.NeighbourPredictor(50, 50, 500).decode(noHoverYet);
        for (int j = 0; j < 2; j++) {
            assertEquals(1.0 / 50, d.probability(j, 0), 1e-12);
            assertEquals(1.0 / 50, d.probability(j, 49), 1e-12);
        }
    }

    @Test
    void neighbourPredictor_favoursTheLastItemAndItsNeighbours() {
        Distribution d = new SpiGuideExamples.NeighbourPredictor(50, 50, 500)
                .decode(MAPPER.createObjectNode().put("request", 10));
        assertEquals(0.6, d.probability(0, 10), 1e-12);
        assertEquals(0.15, d.probability(0, 11), 1e-12);
        assertTrue(d.probability(1, 10) < d.probability(0, 10));
        assertEquals(1.0, d.totalMass(1), 1e-12);
    }

    @Nested
    class ListLayoutContract extends LayoutContract {
        @Override
        protected Layout layout() {
            return new SpiGuideExamples.ListLayout(200, 300, 18);
        }
    }

    /** Two daemon threads for the example block sources' encodings. */
    private static ExecutorService encoderThreads(String name) {
        return Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    @Nested
    class Source extends BlockSourceContract {
        private final ExecutorService executor = encoderThreads("spi-guide-encoder");

        @Override
        protected BlockSource source() {
            SpiGuideExamples.SeriesEncoder encoder = new SpiGuideExamples.SeriesEncoder(96);
            int n = 30;
            int[] counts = new int[n];
            for (int i = 0; i < n; i++) {
                counts[i] = encoder.encode(i, series(10 * (i + 1), i)).size();
            }
            return new SpiGuideExamples.EncodingBlockSource<>(encoder, i -> series(10 * (i + 1), i), counts, executor);
        }
    }

    @Nested
    class LazySource extends BlockSourceContract {
        private final ExecutorService executor = encoderThreads("spi-guide-lazy-encoder");

        @Override
        protected BlockSource source() {
            // Series of 2 to 60 points of 12 bytes: 1 to 8 blocks of 96 bytes, at most 8.
            return new SpiGuideExamples.LazyEncodingBlockSource<>(new SpiGuideExamples.SeriesEncoder(96),
                    i -> series(2 * (i + 1), i), 30, 8, executor);
        }
    }

    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER =
            new com.fasterxml.jackson.databind.ObjectMapper();

    @Test
    void brushScope_bindsEveryBinOfTheOtherViews_toItsFilteredContent() throws Exception {
        SpiGuideExamples.BrushScope scope = new SpiGuideExamples.BrushScope(3, 10);
        dev.khameleon.core.Bindings b = scope.decode(
                dev.khameleon.core.protocol.ControlCodec.mapper().readTree("{\"view\": 1, \"lo\": 2, \"hi\": 5}"));
        assertEquals(20, b.size(), "the 10 bins of views 0 and 2");
        assertTrue(b.indexOf(15) < 0, "the brushed view keeps its own content");
        assertEquals(15, b.contentKey(15));
        long key = b.contentKey(23);
        assertEquals(23, key % 30, "the key names the request");
        assertEquals((1 * 10 + 2) * 10 + 5, key / 30 - 1, "and the brush");
        assertEquals(scope.contentKey(4, 1, 2, 5), b.contentKey(4));
        assertEquals(dev.khameleon.core.Bindings.none(),
                scope.decode(dev.khameleon.core.protocol.ControlCodec.mapper().readTree("{}")));
    }

    @Test
    void brushScope_rejectsABrushOutOfRange() throws Exception {
        SpiGuideExamples.BrushScope scope = new SpiGuideExamples.BrushScope(3, 10);
        for (String bad : new String[] {"{\"view\": 3, \"lo\": 0, \"hi\": 1}", "{\"view\": 0, \"lo\": 4, \"hi\": 2}",
                "{\"view\": 0, \"lo\": 0}", "[1]"}) {
            assertThrows(IllegalArgumentException.class,
                    () -> scope.decode(dev.khameleon.core.protocol.ControlCodec.mapper().readTree(bad)), bad);
        }
    }
}
