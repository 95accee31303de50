package dev.khameleon.examples.crossfilter;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.BlockSource;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The live crossfilter's blocks: request {@code v} is view {@code v}'s progressive tile
 * ({@link TileEncoder}), fetched by content key through the shared {@link TileCache}. The blocks
 * of the {@code maxEncoded} most recently used tiles are kept encoded, so the blocks of one tile
 * cost one encoding. Never blocks: queries run on the cache's threads, encoding on
 * {@code encoder}'s executor. Thread-safe.
 */
final class TileBlockSource implements BlockSource {
    private final TileCache cache;
    private final TileEncoder encoder;
    private final ContentKeys keys;
    private final Executor encoding;
    private final int maxEncoded;
    private final Map<TileKey, CompletableFuture<List<Block>>> encoded = new LinkedHashMap<>(16, 0.75f, true);

    TileBlockSource(TileCache cache, TileEncoder encoder, ContentKeys keys, Executor encoding, int maxEncoded) {
        this.cache = cache;
        this.encoder = encoder;
        this.keys = keys;
        this.encoding = encoding;
        this.maxEncoded = maxEncoded;
    }

    @Override
    public int requestCount() {
        return View.values().length;
    }

    @Override
    public int blockSize() {
        return encoder.blockSize();
    }

    @Override
    public int blockCount(int requestId) {
        return encoder.blockCount(View.of(requestId));
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, int blockIndex) {
        return fetch(requestId, requestId, blockIndex);
    }

    @Override
    public CompletionStage<Block> fetch(int requestId, long contentKey, int blockIndex) {
        TileKey key = keys.lookup(contentKey);
        if (key == null || key.active().ordinal() != requestId) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("no tile of view " + requestId
                    + " has content key " + contentKey + " (unknown, or forgotten by the key table)"));
        }
        return blocks(key).thenApply(blocks -> blocks.get(blockIndex));
    }

    private CompletableFuture<List<Block>> blocks(TileKey key) {
        CompletableFuture<List<Block>> result;
        synchronized (encoded) {
            CompletableFuture<List<Block>> known = encoded.get(key);
            if (known != null) {
                return known;
            }
            result = cache.get(key).thenApplyAsync(t -> encoder.encode(key.active().ordinal(), t), encoding);
            encoded.put(key, result);
            Iterator<CompletableFuture<List<Block>>> oldest = encoded.values().iterator();
            while (encoded.size() > maxEncoded) {
                oldest.next();
                oldest.remove();
            }
        }
        result.whenComplete((ok, error) -> {
            if (error != null) {
                synchronized (encoded) {
                    encoded.remove(key, result); // a failure is not kept: the next fetch tries again
                }
            }
        });
        return result;
    }
}
