package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.client.ClientListener;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.client.Response;
import dev.khameleon.core.spi.ClientPredictor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The live crossfilter over loopback with the Java client and DuckDB on the real 10,000 flights:
 * a brush on one view rebinds the others, a hovered view's pushed blocks decode to exactly the tile
 * the database computes for those brushes, and after the brush moves the answer is the new tile,
 * never a block of the old one.
 */
@Timeout(120)
class CrossfilterServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static TileBackend db;
    private static TileCache cache;
    private CrossfilterServer server;
    private KhameleonClient<Integer> client;

    @BeforeAll
    static void load() throws Exception {
        FlightsTable table = FlightsTable.read(SharedData.flightsCsv());
        db = TileBackend.duckDb(table, table.sample(table.size(), 42), 1);
        cache = TileCache.create(db);
    }

    @AfterAll
    static void unload() throws Exception {
        if (cache != null) {
            cache.close();
        }
        if (db != null) {
            db.close();
        }
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    /** The client half of the point predictor: the view under the pointer. */
    private static final class Hover implements ClientPredictor<Integer> {
        private volatile int view = -1;

        @Override
        public void onEvent(Integer event) {
            view = event;
        }

        @Override
        public JsonNode state(long nowMillis) {
            return JsonNodeFactory.instance.objectNode().put("request", view);
        }
    }

    /** What the database answers for {@code key}, slice by slice, without the cache or the server. */
    private static Tile expected(TileKey key) throws Exception {
        List<Slice> slices = new ArrayList<>();
        for (View passive : Tile.passives(key.active())) {
            slices.add(db.slice(key, passive));
        }
        return new Tile(key, slices);
    }

    /** Asks for {@code view}; asserts every answer is a prefix of the tile of {@code key}; returns the complete one. */
    private Tile hoverAndRead(View view, TileKey key) throws Exception {
        client.onEvent(view.ordinal());
        LinkedBlockingQueue<Response> answers = new LinkedBlockingQueue<>();
        client.request(view.ordinal(), answers::add);
        Response last;
        do {
            last = answers.poll(60, TimeUnit.SECONDS);
            assertNotNull(last, view + " is answered");
            assertEquals(key, TileDecoder.decode(last.blocks()).key(),
                    "every answer of " + view + " is its tile under the current brushes");
        } while (!last.isComplete());
        return TileDecoder.decode(last.blocks()).toTile();
    }

    @Test
    void aHoveredView_getsTheTileOfTheCurrentBrushes_andTheNewOneAfterTheBrushMoves() throws Exception {
        server = CrossfilterServer.start(cache, TileEncoder.withBlockSize(TileEncoder.DEFAULT_BLOCK_SIZE), 0, 64);
        LinkedBlockingQueue<int[]> rebinds = new LinkedBlockingQueue<>();
        client = KhameleonClient.builder().predictor(new Hover()).uri(server.webSocketUri())
                .application(CrossfilterServer.APPLICATION).cacheBlocks(256).reconnect(false)
                .listener(new ClientListener() {
                    @Override
                    public void onRebind(int[] requestIds) {
                        rebinds.add(requestIds.clone());
                    }
                })
                .build();
        client.connect().get(30, TimeUnit.SECONDS);

        Tile tileBefore = brushDistanceAndReadArrDelay(rebinds, 0, 100);
        Tile tileAfter = brushDistanceAndReadArrDelay(rebinds, 100, 200);
        assertNotEquals(tileBefore, tileAfter, "the two brushes select different flights");
    }

    /**
     * Brushes DISTANCE over {@code [from, to)}; asserts the other five views are rebound and that
     * ARR_DELAY's pushed tile is exactly the database's for that brush; returns that tile.
     */
    private Tile brushDistanceAndReadArrDelay(LinkedBlockingQueue<int[]> rebinds, int from, int to) throws Exception {
        client.scope(JSON.readTree("{\"DISTANCE\": [" + from + ", " + to + "]}"));
        int[] rebound = rebinds.poll(30, TimeUnit.SECONDS);
        assertNotNull(rebound, "the brush " + from + ".." + to + " rebinds the other views");
        assertArrayEquals(Arrays.stream(View.values()).filter(v -> v != View.DISTANCE).mapToInt(View::ordinal)
                .toArray(), rebound);
        TileKey key = new TileKey(View.ARR_DELAY, Filters.none().with(View.DISTANCE, from, to));
        Tile tile = hoverAndRead(View.ARR_DELAY, key);
        assertEquals(expected(key), tile);
        return tile;
    }
}
