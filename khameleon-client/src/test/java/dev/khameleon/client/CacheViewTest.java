package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ClientPredictor;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Applications see the cache read-only, and a mistyped pointer event is ignored, as documented. */
class CacheViewTest {

    private static Block block(int request, int index, int count) {
        return Block.of(request, index, count, new byte[8], 0);
    }

    @Test
    void view_followsTheCacheButCannotWriteIt() {
        RingBufferCache cache = new RingBufferCache(4);
        CacheView view = cache.view();
        assertSame(view, cache.view(), "one view per cache");
        assertFalse(((Object) view) instanceof RingBufferCache, "not castable back to the writer");
        assertEquals(4, view.capacity());
        assertEquals(0, view.size());
        cache.put(0, block(7, 0, 2));
        cache.put(1, block(7, 1, 2));
        assertEquals(2, view.size());
        assertEquals(2, view.nextSeq());
        assertEquals(2, view.prefixLength(7));
        assertEquals(List.of(block(7, 0, 2), block(7, 1, 2)), view.prefix(7));
        assertTrue(view.contains(7, 1));
        assertEquals(2, view.presentCount(7));
        assertEquals(2, view.blockCount(7));
        assertEquals(1, view.requestsPresent());
        assertTrue(java.util.Arrays.stream(CacheView.class.getMethods())
                .noneMatch(m -> m.getName().equals("put") || m.getName().equals("reset")
                        || m.getName().equals("skip") || m.getName().equals("invalidate")));
    }

    @Test
    void client_cacheIsTheReadOnlyView() {
        try (KhameleonClient<?> client = KhameleonClient.builder().uri(URI.create("ws://127.0.0.1:9/app"))
                .application("app").cacheBlocks(8).build()) {
            CacheView view = client.cache();
            assertFalse(((Object) view) instanceof RingBufferCache);
            assertEquals(8, view.capacity());
        }
    }

    @Test
    void onEventXY_withAnotherEventType_isIgnoredNotThrown() {
        AtomicInteger seen = new AtomicInteger();
        ClientPredictor<String> words = new ClientPredictor<>() {
            @Override
            public void onEvent(String event) {
                seen.addAndGet(event.length());
            }

            @Override
            public JsonNode state(long nowMillis) {
                return JsonNodeFactory.instance.objectNode();
            }
        };
        try (KhameleonClient<String> client = KhameleonClient.builder().uri(URI.create("ws://127.0.0.1:9/app"))
                .application("app").cacheBlocks(8).predictor(words).build()) {
            assertDoesNotThrow(() -> client.onEvent(1, 2, 3));
            client.onEvent("abc");
            assertEquals(3, seen.get(), "the typed event still reaches the predictor");
        }
    }
}
