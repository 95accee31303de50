package dev.khameleon.core.spi;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where a server gets the blocks it pushes: an in-memory store, a file store, or a database
 * query followed by a {@link ProgressiveEncoder}.
 *
 * <p>{@link #blockCount(int)} must be cheap and stable (the scheduler asks for it when it
 * plans); {@link #fetch} may be slow and may fail. Implementations must be thread-safe.
 *
 * <p><b>Counts told lazily.</b> A source that learns a response's block count only by encoding it
 * (a query whose result size is unknown until it runs) returns an upper bound from
 * {@link #blockCount(int)} and {@code true} from {@link #isBlockCountBound(int)}. The scheduler then
 * plans on the bound until the first block of that request is fetched: every block carries the
 * exact count of its response ({@link Block#count()}), and from then on no block index at or past
 * it is planned. A block whose count exceeds the bound, or differs from the count an earlier block
 * of the same request carried, is refused and the request is no longer pushed in that session.
 */
public interface BlockSource {

    /** The number of requests {@code n}; ids are {@code 0..n-1}. */
    int requestCount();

    /** The fixed payload size of every block, in bytes. */
    int blockSize();

    /**
     * How many blocks the response of {@code requestId} has (at least 1); an upper bound on it
     * when {@link #isBlockCountBound(int) isBlockCountBound(requestId)} is true.
     */
    int blockCount(int requestId);

    /**
     * Whether {@link #blockCount(int) blockCount(requestId)} is only an upper bound, the exact count
     * being told by the blocks themselves once the response is encoded (every block of a response
     * carries the same exact count, at least 1 and at most the bound). Like {@code blockCount} it
     * must be cheap and stable: a server reads it once per request when it builds the application.
     * Declare a count lazily only where knowing it would mean encoding the response up front; a
     * tight bound keeps the scheduler's plan close to the exact one. The default is {@code false}:
     * every count is exact.
     */
    default boolean isBlockCountBound(int requestId) {
        return false;
    }

    /**
     * Fetches block {@code blockIndex} of {@code requestId}. The returned stage completes with
     * the block, or exceptionally if it could not be produced. It must not block the caller:
     * slow work belongs on an executor of the implementation's choosing.
     */
    CompletionStage<Block> fetch(int requestId, int blockIndex);

    /**
     * Fetches block {@code blockIndex} of the content {@code contentKey}, which request
     * {@code requestId} answers in a session whose {@link RequestScope} bound it there (see
     * {@link dev.khameleon.core.Bindings}). The block carries {@code requestId} (the id the client
     * asked for) and the same block count as {@link #blockCount(int) blockCount(requestId)}: the
     * scheduler plans with that count, so a content key must have as many blocks as every request
     * id bound to it. Same threading and failure rules as {@link #fetch(int, int)}.
     *
     * <p>The default answers the default meaning ({@code contentKey == requestId}) with
     * {@link #fetch(int, int)} and fails for any other key; applications with a request scope
     * override it.
     */
    default CompletionStage<Block> fetch(int requestId, long contentKey, int blockIndex) {
        if (contentKey == requestId) {
            return fetch(requestId, blockIndex);
        }
        return CompletableFuture.failedFuture(new UnsupportedOperationException("this block source has no content "
                + contentKey + " for request " + requestId + ": override fetch(requestId, contentKey, blockIndex)"));
    }

    /**
     * Whether {@link #fetch} always returns an already completed stage and never blocks, like a
     * source over blocks held in memory. A server then calls {@code fetch} on the session's own
     * event loop and sends the block at once, instead of handing each fetch to its fetch executor
     * and the result back, which is two thread hand-offs per block; on a busy machine each can wait
     * for a core. Return {@code true} only if that holds for every call: a fetch that blocks would
     * stall every session on that event loop. A stage that is not complete after all is still
     * handled correctly, only without the gain. The default is {@code false}.
     */
    default boolean fetchesImmediately() {
        return false;
    }

    /**
     * The server no longer wants the block of a fetch it started, whose stage has not completed:
     * the session ended, a new prediction dropped the planned slot, or the fetch timed out. A
     * source may stop the work behind it, such as a database query ({@code Statement.cancel()}).
     * It is told once per abandoned fetch, on any thread (possibly while that fetch's call is still
     * running on another), and must return at once without blocking.
     * Fetches of several sessions may share one piece of work (the same block, or blocks cut from
     * the same query): stop it only when every fetch waiting for it was cancelled. The stage may
     * still complete; the server ignores it. A fetch that is still waiting in the server's queue
     * never reaches the source, so it is not told here. The default does nothing.
     */
    default void cancel(int requestId, long contentKey, int blockIndex) {
    }

    /**
     * A hint, given as soon as a chunk is planned and before its blocks are fetched, that the
     * blocks of {@code chunk} will be fetched soon in that order; a source may start reading
     * ahead. Must return at once without blocking. The default ignores the hint.
     */
    default void prefetch(ScheduleChunk chunk) {
    }

    /**
     * A source over responses already encoded in memory: {@code responses.get(i)} are the
     * blocks of request {@code i}, in order. Fetches complete immediately.
     *
     * @throws IllegalArgumentException if a response is empty, a block has the wrong size,
     *     request id, index or count
     */
    static BlockSource inMemory(int blockSize, List<List<Block>> responses) {
        return new InMemoryBlockSource(blockSize, responses);
    }
}
