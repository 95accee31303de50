package dev.khameleon.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Bindings;

/**
 * The server half of a per-session request scope: for applications where what a request id means
 * depends on the session and changes while it runs. In linked histograms (crossfilter), request
 * "tile {@code p} of view {@code V}" means the counts under the brushes on the <em>other</em>
 * views, so brushing view {@code B} changes the meaning of every tile of the views other than
 * {@code B}.
 *
 * <p>The client sends its scope (e.g. its brushes) as JSON whenever it changes; the server
 * {@linkplain #decode decodes} it into the session's {@link Bindings}, compares them with the
 * session's previous bindings, and for every request id whose content key changed tells the
 * client to drop its cached blocks, forgets the blocks it had scheduled for it, and pushes the new
 * content from its first block. Each scope replaces the previous one as a whole: an id the
 * previous scope bound and this one does not goes back to its default meaning.
 *
 * <p>Scopes come from the network: treat them as untrusted and throw
 * {@link IllegalArgumentException} with a clear message for anything malformed (the session then
 * ends with {@code invalid_scope}). Must be thread-safe; it runs on the server's scheduler
 * threads, never on its network threads.
 */
@FunctionalInterface
public interface RequestScope {

    /**
     * The bindings {@code scope} asks for: the ids that answer other content than their default,
     * each with the content key it answers. Ids must be below the application's request count.
     *
     * @throws IllegalArgumentException if the scope is malformed
     */
    Bindings decode(JsonNode scope);
}
