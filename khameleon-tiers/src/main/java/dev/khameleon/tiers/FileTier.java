package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.store.FileBlockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The local file tier: a read-only {@link FileBlockStore} holding responses under their content keys
 * (its request ids). Answers a lookup whose key it holds with the lookup's block count; passes every
 * other lookup on, and one whose read fails too (with a log line). Keeps nothing: responses are imported
 * into the store, not written by the stack. The only tier that reads ahead. Thread-safe; never blocks.
 */
final class FileTier implements Tier {
    /** A failed read is news about a lookup, logged with the stack's other lookup events. */
    private static final Logger LOG = LoggerFactory.getLogger(TieredBlockSource.class);

    private final FileBlockStore file;
    private final TierCounters counters;

    /** The tier reading {@code file}, which stays the caller's to close. */
    FileTier(FileBlockStore file, TierCounters counters) {
        this.file = file;
        this.counters = counters;
    }

    /** The response read from the store, or the one from the tiers below if the store lacks it or fails. */
    @Override
    public CompletableFuture<StoredResponse> load(Chain chain) {
        Lookup lookup = chain.lookup();
        long contentKey = lookup.contentKey();
        if (contentKey < 0 || contentKey >= file.requestCount()
                || file.blockCount((int) contentKey) != lookup.count()) {
            return chain.proceed(lookup);
        }
        List<CompletableFuture<Block>> blocks = new ArrayList<>(lookup.count());
        for (int i = 0; i < lookup.count(); i++) {
            blocks.add(file.fetch((int) contentKey, i).toCompletableFuture());
        }
        return StoredResponse.gather(contentKey, file.blockSize(), blocks).handle((r, e) -> {
            if (e == null) {
                counters.fileHits.increment();
                return CompletableFuture.completedFuture(r);
            }
            LOG.warn("file tier {} failed to read content {} ({}); trying the tiers below", file.directory(),
                    contentKey, e.getMessage());
            return chain.proceed(lookup);
        }).thenCompose(Function.identity());
    }

    /** Forwards the hint to the store, which reads ahead. */
    @Override
    public void prefetch(ScheduleChunk chunk) {
        file.prefetch(chunk);
    }
}
