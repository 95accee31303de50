package dev.khameleon.server;

import dev.khameleon.core.Bindings;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.protocol.ControlCodec;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.protocol.Protocol;
import dev.khameleon.core.protocol.ProtocolException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One session's bindings of request ids to content, each with the generation it was bound in.
 * An unbound id answers its default content (content key = the id) in generation 0; every
 * {@link #apply} that changes anything takes the next generation for the ids it binds anew.
 *
 * <p>Lookups are binary searches over the bound ids; {@link #apply} merges the old and new
 * bindings in {@code O(old + new)}. Not thread-safe: the session's scheduler task owns it.
 */
final class BindingTable {
    /** The ids whose meaning changed, ascending, and each one's new generation (0: back to its default). */
    record Changes(int[] requestIds, int[] generations) {
        static final Changes NONE = new Changes(new int[0], new int[0]);

        boolean isEmpty() {
            return requestIds.length == 0;
        }

        /**
         * The {@code rebind} messages announcing these changes, at most
         * {@link Protocol#MAX_REBIND_PAIRS} ids each, encoded (off the network threads: a change can
         * list many ids).
         */
        List<String> messages() {
            List<String> out = new ArrayList<>();
            for (int from = 0; from < requestIds.length; from += Protocol.MAX_REBIND_PAIRS) {
                int to = Math.min(requestIds.length, from + Protocol.MAX_REBIND_PAIRS);
                out.add(ControlCodec.encode(new ControlMessage.Rebind(Arrays.copyOfRange(requestIds, from, to),
                        Arrays.copyOfRange(generations, from, to))));
            }
            return out;
        }
    }

    /** The content key and generation of each slot of a chunk. */
    record Annotation(long[] contentKeys, int[] generations) {
    }

    private final int requestCount;
    private final int maxBound;
    private Bindings current = Bindings.none();
    private int[] generations = new int[0];
    private int lastGeneration;

    /**
     * @param requestCount {@code n}: bound ids must be below it
     * @param maxBound     the most ids one scope may bind
     */
    BindingTable(int requestCount, int maxBound) {
        this.requestCount = requestCount;
        this.maxBound = maxBound;
    }

    /** The content key {@code requestId} answers now. */
    long contentKey(int requestId) {
        return current.contentKey(requestId);
    }

    /** The generation of {@code requestId}'s current binding; 0 while it has its default meaning. */
    int generation(int requestId) {
        int k = current.indexOf(requestId);
        return k >= 0 ? generations[k] : 0;
    }

    /** How many ids are bound now. */
    int size() {
        return current.size();
    }

    /**
     * Makes {@code next} the session's bindings (a whole new scope: ids it does not bind go back to
     * their default) and returns the ids whose content key changed. Leaves the table unchanged
     * when it throws.
     *
     * @throws ProtocolException {@code invalid_scope} if an id is {@code >= n}; {@code limit_exceeded}
     *     if {@code next} binds more than the limit, or the session has used up its generations
     */
    Changes apply(Bindings next) {
        if (next.size() > maxBound) {
            throw new ProtocolException(ErrorCode.LIMIT_EXCEEDED, "the scope binds " + next.size()
                    + " request ids, more than the application's limit of " + maxBound + " (maxBoundRequests)");
        }
        if (next.size() > 0 && next.requestId(next.size() - 1) >= requestCount) {
            throw new ProtocolException(ErrorCode.INVALID_SCOPE, "the scope binds request "
                    + next.requestId(next.size() - 1) + ", out of range [0, " + requestCount + ")");
        }
        if (lastGeneration == Integer.MAX_VALUE) {
            throw new ProtocolException(ErrorCode.LIMIT_EXCEEDED, "the session has used up its "
                    + Integer.MAX_VALUE + " binding generations");
        }
        int generation = lastGeneration + 1;
        int[] nextGenerations = new int[next.size()];
        int[] changedIds = new int[current.size() + next.size()];
        int[] changedGenerations = new int[changedIds.length];
        int changed = 0;
        int i = 0;
        int j = 0;
        while (i < current.size() || j < next.size()) {
            int a = i < current.size() ? current.requestId(i) : Integer.MAX_VALUE;
            int b = j < next.size() ? next.requestId(j) : Integer.MAX_VALUE;
            if (a < b) {
                changedIds[changed] = a;
                changedGenerations[changed++] = 0;
                i++;
            } else if (b < a) {
                nextGenerations[j] = generation;
                changedIds[changed] = b;
                changedGenerations[changed++] = generation;
                j++;
            } else {
                if (current.contentKeyAt(i) == next.contentKeyAt(j)) {
                    nextGenerations[j] = generations[i];
                } else {
                    nextGenerations[j] = generation;
                    changedIds[changed] = b;
                    changedGenerations[changed++] = generation;
                }
                i++;
                j++;
            }
        }
        current = next;
        generations = nextGenerations;
        if (changed == 0) {
            return Changes.NONE;
        }
        lastGeneration = generation;
        return new Changes(Arrays.copyOf(changedIds, changed), Arrays.copyOf(changedGenerations, changed));
    }

    /** The content key and generation each slot of {@code chunk} is fetched and sent with. */
    Annotation annotate(ScheduleChunk chunk) {
        long[] keys = new long[chunk.size()];
        int[] gens = new int[chunk.size()];
        for (int k = 0; k < keys.length; k++) {
            int id = chunk.requestId(k);
            int at = current.indexOf(id);
            keys[k] = at >= 0 ? current.contentKeyAt(at) : id;
            gens[k] = at >= 0 ? generations[at] : 0;
        }
        return new Annotation(keys, gens);
    }
}
