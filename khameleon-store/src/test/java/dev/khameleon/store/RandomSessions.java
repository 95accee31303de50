package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A seeded random caller for concurrency tests: announces most chunks, fetches them, checks every byte. */
final class RandomSessions {
    private RandomSessions() {
    }

    /**
     * Announces a random chunk of up to {@code maxChunk} blocks (all but one in
     * {@code unannouncedOneIn} chunks), fetches all of its blocks at once, checks each against
     * {@code corpus}, and repeats until {@code total} blocks were checked; returns that count.
     */
    static int run(FileBlockStore store, Corpus corpus, SplittableRandom rnd, int total, int maxChunk,
            int unannouncedOneIn) throws Exception {
        int checked = 0;
        long seq = 0;
        while (checked < total) {
            int len = 1 + rnd.nextInt(maxChunk);
            int[] ids = new int[len];
            int[] idx = new int[len];
            for (int k = 0; k < len; k++) {
                ids[k] = rnd.nextInt(corpus.size());
                idx[k] = rnd.nextInt(corpus.count(ids[k]));
            }
            if (rnd.nextInt(unannouncedOneIn) != 0) {
                store.prefetch(ScheduleChunk.of(seq, ids, idx));
            }
            seq += len;
            List<CompletableFuture<Block>> inFlight = new ArrayList<>();
            for (int k = 0; k < len && checked + inFlight.size() < total; k++) {
                inFlight.add(store.fetch(ids[k], idx[k]).toCompletableFuture());
            }
            for (int k = 0; k < inFlight.size(); k++) {
                Block b = inFlight.get(k).get(60, TimeUnit.SECONDS);
                assertEquals(corpus.block(ids[k], idx[k]), b, "request " + ids[k] + " block " + idx[k]);
            }
            checked += inFlight.size();
        }
        return checked;
    }
}
