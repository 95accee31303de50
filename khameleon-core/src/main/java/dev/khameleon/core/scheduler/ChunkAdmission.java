package dev.khameleon.core.scheduler;

import java.util.Arrays;

/**
 * The paper's backend-concurrency heuristic for one chunk: at most {@code Cb − inFlight} requests
 * that are neither already in the chunk nor being fetched may enter it. Holds which requests the
 * current chunk admitted, in a table that costs only what it marks (sparse for a large {@code n}).
 * Not thread-safe: its scheduler's.
 */
final class ChunkAdmission {
    private final int limit;
    private final BackendLoad backend;
    /** {@code marks.get(i)}: 1 if request {@code i} is one of the chunk's admitted new requests, else 0. */
    private final IdTable marks;
    /** The chunk's admitted new requests, {@link #count} of them, so the next chunk can unmark them. */
    private int[] admitted = new int[0];
    private int count;
    private int budget;

    /** For a limit of {@code limit} ({@code > 0}) distinct requests in flight on {@code backend}. */
    ChunkAdmission(int limit, BackendLoad backend, int requestCount, boolean sparse) {
        this.limit = limit;
        this.backend = backend;
        this.marks = IdTable.of(requestCount, IdTable.Defaults.constant(0), sparse);
    }

    /** A new chunk: nothing admitted yet, and a budget of what the backend has room for now. */
    void startChunk() {
        for (int x = 0; x < count; x++) {
            marks.set(admitted[x], 0);
        }
        count = 0;
        budget = Math.max(0, limit - backend.inFlight());
    }

    /** Whether {@code id} adds nothing to the backend's load: already in the chunk, or being fetched. */
    boolean isFree(int id) {
        return marks.get(id) != 0 || backend.isFetching(id);
    }

    /** Admits {@code id}, a request not {@link #isFree free}, if the chunk's budget allows; returns whether it did. */
    boolean admit(int id) {
        if (count >= budget) {
            return false;
        }
        marks.set(id, 1);
        if (count == admitted.length) {
            admitted = Arrays.copyOf(admitted, Math.max(16, 2 * count));
        }
        admitted[count++] = id;
        return true;
    }

    /** The ints the marks hold: {@code n} when dense. */
    long retainedInts() {
        return marks.retainedInts();
    }
}
