package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.spi.UtilityFunction;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TileUtilityTest {

    @Test
    void measure_overRealBrushStates_risesFromZeroToOne() throws Exception {
        FlightsTable table = FlightsTable.read(FlightsData.flightsCsv());
        List<BrushState> all = BrushState.all(Workflows.readAll(FlightsData.workflows()));
        List<BrushState> states = BrushState.sample(all, 40, 3);
        assertEquals(40, states.size());
        TileUtility u = TileUtility.measure(states, key -> JavaCounts.tile(table, key),
                TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE), TileUtility.defaultFractions());
        double[] v = u.utilities();
        assertEquals(0.0, v[0]);
        assertEquals(1.0, v[v.length - 1], 1e-12);
        // The first block (about a tenth of a tile) already draws most of every chart ...
        assertTrue(v[1] > 0.5, "U(0.1) = " + v[1]);
        // ... but not all of it: interpolated rows are approximate.
        assertTrue(v[1] < 1.0, "U(0.1) = " + v[1]);
        for (int i = 1; i < v.length; i++) {
            assertTrue(v[i] >= v[i - 1] - 0.02, "utility falls from " + v[i - 1] + " to " + v[i]);
        }
        UtilityFunction f = u.function();
        assertEquals(1.0, f.utility(1.0), 1e-9);
        assertTrue(f.marginalGains(10)[0] > 0.5);
    }

    @Test
    void measure_rejectsNoStatesAndBadFractions() {
        TileEncoder enc = TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE);
        assertThrows(IllegalArgumentException.class,
                () -> TileUtility.measure(List.of(), k -> null, enc, TileUtility.defaultFractions()));
        BrushState s = new BrushState(new TileKey(FlightsViews.DISTANCE, FlightsViews.none()), 1, 2);
        assertThrows(IllegalArgumentException.class,
                () -> TileUtility.measure(List.of(s), k -> null, enc, new double[] {0, 0.5}));
    }

    @Test
    void sample_isSeededAndWithoutReplacement() {
        List<BrushState> all = java.util.stream.IntStream.range(0, 50)
                .mapToObj(i -> new BrushState(new TileKey(FlightsViews.DISTANCE, FlightsViews.none()), i, i + 1)).toList();
        List<BrushState> a = BrushState.sample(all, 20, 9);
        assertEquals(a, BrushState.sample(all, 20, 9));
        assertEquals(20, a.stream().distinct().count());
        assertEquals(50, BrushState.sample(all, 80, 9).size());
    }
}
