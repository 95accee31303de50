package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.khameleon.core.Bindings;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The live crossfilter's scope (brushes to bindings), its bounded key table and its refusals. */
class BrushScopeTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text);
    }

    @Test
    void noBrush_leavesEveryViewAtItsDefaultTile() throws Exception {
        assertEquals(Bindings.none(), new BrushScope(new ContentKeys(FlightsViews.VIEWS, 8)).decode(json("{}")));
    }

    @Test
    void aBrushOnOneView_rebindsTheOtherFiveToTheirFilteredTiles() throws Exception {
        ContentKeys keys = new ContentKeys(FlightsViews.VIEWS, 8);
        Bindings b = new BrushScope(keys).decode(json("{\"DISTANCE\": [0, 100]}"));
        assertEquals(5, b.size());
        assertTrue(b.indexOf(FlightsViews.DISTANCE.index()) < 0, "the brushed view keeps its unfiltered tile");
        Filters filters = FlightsViews.none().with(FlightsViews.DISTANCE, 0, 100);
        Set<Long> distinct = new HashSet<>();
        for (View v : FlightsViews.values()) {
            if (v != FlightsViews.DISTANCE) {
                long key = b.contentKey(v.index());
                assertTrue(key >= FlightsViews.values().length, v + " is bound to a filtered key, was " + key);
                assertEquals(new TileKey(v, filters), keys.lookup(key));
                distinct.add(key);
            }
        }
        assertEquals(5, distinct.size());
        assertEquals(b, new BrushScope(keys).decode(json("{\"DISTANCE\": [0, 100]}")), "the same brushes, the same keys");
    }

    @Test
    void anEmptyRange_isNoBrush() throws Exception {
        assertEquals(Bindings.none(), new BrushScope(new ContentKeys(FlightsViews.VIEWS, 8)).decode(json("{\"AIR_TIME\": [40, 40]}")));
    }

    @Test
    void decode_rejectsMalformedScopes_sayingWhy() {
        BrushScope scope = new BrushScope(new ContentKeys(FlightsViews.VIEWS, 8));
        String[][] cases = {
                {"[1, 2]", "scope must be an object"},
                {"{\"SPEED\": [0, 10]}", "unknown view SPEED"},
                {"{\"DISTANCE\": [0]}", "brush of DISTANCE must be [from, to]"},
                {"{\"DISTANCE\": [0, 1.5]}", "brush of DISTANCE must be [from, to]"},
                {"{\"DISTANCE\": \"0-10\"}", "brush of DISTANCE must be [from, to]"},
                {"{\"DISTANCE\": [20, 10]}", "0 <= from <= to <= 350"},
                {"{\"DISTANCE\": [0, 351]}", "0 <= from <= to <= 350"},
        };
        for (String[] c : cases) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> scope.decode(json(c[0])),
                    c[0]);
            assertTrue(e.getMessage().contains(c[1]), c[0] + ": " + e.getMessage());
        }
    }

    @Test
    void keyTable_forgetsTheLeastRecentlyUsedKeyPastItsLimit() {
        ContentKeys keys = new ContentKeys(FlightsViews.VIEWS, 2);
        TileKey a = new TileKey(FlightsViews.ARR_TIME, FlightsViews.none().with(FlightsViews.DISTANCE, 0, 10));
        TileKey b = new TileKey(FlightsViews.ARR_TIME, FlightsViews.none().with(FlightsViews.DISTANCE, 0, 20));
        TileKey c = new TileKey(FlightsViews.ARR_TIME, FlightsViews.none().with(FlightsViews.DISTANCE, 0, 30));
        long ka = keys.register(a);
        long kb = keys.register(b);
        keys.lookup(ka); // a is used again: b is now the least recently used
        long kc = keys.register(c);
        assertEquals(2, keys.size());
        assertEquals(a, keys.lookup(ka));
        assertNull(keys.lookup(kb), "the least recently used key is forgotten");
        assertEquals(c, keys.lookup(kc));
        assertEquals(FlightsViews.AIR_TIME.index(), keys.register(new TileKey(FlightsViews.AIR_TIME, FlightsViews.none())),
                "an unfiltered tile's key is its view's request id");
        assertThrows(IllegalArgumentException.class, () -> new ContentKeys(FlightsViews.VIEWS, 0));
    }

    @Test
    void fetchOfAnUnknownKey_failsWithoutQuerying() {
        TileBlockSource source = new TileBlockSource(null, TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE),
                new ContentKeys(FlightsViews.VIEWS, 2), Runnable::run, 2);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> source.fetch(1, 1234, 0).toCompletableFuture().get());
        assertTrue(e.getCause().getMessage().contains("no tile of view 1 has content key 1234"), e.getMessage());
    }

    @Test
    void start_rejectsAPortOutOfRangeAndAnEmptyKeyTable() {
        TileEncoder encoder = TileEncoder.withBlockSize(FlightsViews.VIEWS, TileEncoder.DEFAULT_BLOCK_SIZE);
        assertThrows(IllegalArgumentException.class, () -> CrossfilterServer.start(null, encoder, null, List.of(), -1, 8));
        assertThrows(IllegalArgumentException.class, () -> CrossfilterServer.start(null, encoder, null, List.of(), 0, 0));
    }
}
