package dev.khameleon.server;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.spi.BlockSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * An application's {@link BlockSource} as its sessions call it: whatever the source throws,
 * {@code Error}s included, becomes a failed fetch, an ignored hint or an impossible block count,
 * so that it can fail only the block (and at worst the session) that asked, never a thread of the
 * server. Made once per application, at build time; thread-safe if the source is.
 */
final class GuardedBlockSource {
    private static final Logger log = LoggerFactory.getLogger(GuardedBlockSource.class);

    private final BlockSource source;
    private final String application;
    private final boolean scoped;
    private final int requestCount;
    private final int blockSize;
    private final boolean fetchesImmediately;

    /**
     * @param source      the application's source, whose request count and block size were validated
     * @param application the application's name, for logs
     * @param scoped      whether the application has a request scope: fetches then name content keys
     */
    GuardedBlockSource(BlockSource source, String application, boolean scoped) {
        this.source = source;
        this.application = application;
        this.scoped = scoped;
        this.requestCount = source.requestCount();
        this.blockSize = source.blockSize();
        this.fetchesImmediately = promisesCompletedStages(source, application);
    }

    private static boolean promisesCompletedStages(BlockSource source, String application) {
        try {
            return source.fetchesImmediately();
        } catch (Throwable e) { // without the promise the fetch executor is always safe
            log.debug("{}: fetchesImmediately() of the block source threw", application, e);
            return false;
        }
    }

    /**
     * Whether the source promised completed stages ({@link BlockSource#fetchesImmediately()}), read
     * once at build time: its fetches may then run on an event loop.
     */
    boolean fetchesImmediately() {
        return fetchesImmediately;
    }

    /** {@code n}, read once at build time. */
    int requestCount() {
        return requestCount;
    }

    /** The block size in bytes, read once at build time. */
    int blockSize() {
        return blockSize;
    }

    /** The source's block count of {@code requestId}, or -1 if the source threw (logged at debug). */
    int blockCount(int requestId) {
        try {
            return source.blockCount(requestId);
        } catch (Throwable e) {
            log.debug("{}: blockCount({}) of the block source threw", application, requestId, e);
            return -1;
        }
    }

    /**
     * Starts fetching block {@code blockIndex} of {@code requestId} (of content
     * {@code contentKey} for a scoped application). Never throws and never returns null: a throw
     * or a null from the source is a failed stage.
     */
    CompletionStage<Block> fetch(int requestId, long contentKey, int blockIndex) {
        CompletionStage<Block> stage;
        try {
            stage = scoped ? source.fetch(requestId, contentKey, blockIndex) : source.fetch(requestId, blockIndex);
        } catch (Throwable e) { // an Error too: it would otherwise leave the slot fetching until its timeout
            return CompletableFuture.failedFuture(e);
        }
        return stage != null ? stage
                : CompletableFuture.failedFuture(new NullPointerException("fetch returned null"));
    }

    /** Tells the source a started fetch is no longer wanted; only a courtesy, so a throw is logged at debug. */
    void cancel(int requestId, long contentKey, int blockIndex) {
        try {
            source.cancel(requestId, contentKey, blockIndex);
        } catch (Throwable e) { // the fetch's result is ignored either way
            log.debug("{}: cancel of block {} of request {} failed", application, blockIndex, requestId, e);
        }
    }

    /** Hints a planned chunk to the source; only a hint, so a throw is logged at debug and ignored. */
    void prefetch(ScheduleChunk chunk) {
        try {
            source.prefetch(chunk);
        } catch (Throwable e) { // the fetches will tell whether the source works
            log.debug("{}: prefetch hint failed", application, e);
        }
    }
}
