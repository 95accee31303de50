package dev.khameleon.tiers;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * What every {@link Tier} promises on its own, checked on one tier with a {@link RecordingTier} below
 * it: a response it holds is answered without asking below; a lookup it cannot answer goes down once,
 * for the same request, key and count, and its answer comes back unchanged; a tier that stores keeps
 * that answer and a read-only one does not; an error from below fails the load and is not kept; a load
 * returns before the tier below has answered. Each tier's test extends this class with how to build
 * the tier holding one response; a tier with a store of its own extends {@link StoreTierContract}.
 */
@Timeout(60)
abstract class TierContract {
    /** The content key of the one response the tier holds when built. */
    static final long HELD = 0;
    /** A content key the tier does not hold. */
    static final long MISSING = 5;
    /** The request id every lookup is made for: not 0, so a response labelled with its own id shows. */
    static final int REQUEST = 3;

    final CountingOrigin origin = new CountingOrigin(8, 3, 64, 0);
    final TierCounters counters = new TierCounters();
    final RecordingTier below = new RecordingTier(origin);
    private Tier tier;

    /** The tier under test, new for each test, holding {@code held} under {@link #HELD} and nothing else. */
    abstract Tier tier(StoredResponse held) throws Exception;

    /** Whether the tier keeps a response it had to ask the tiers below for. */
    abstract boolean keepsWhatComesBack();

    /** Releases what {@link #tier} set up around the tier, once the tier is closed; by default nothing. */
    void closeStore() throws Exception {
    }

    @BeforeEach
    void build() throws Exception {
        tier = tier(RecordingTier.response(origin, HELD));
    }

    @AfterEach
    void closeTier() throws Exception {
        try {
            if (tier != null) {
                tier.close();
            }
        } finally {
            closeStore();
        }
    }

    /** Starts a lookup of {@code contentKey} through the tier, with {@link #below} under it. */
    CompletableFuture<StoredResponse> start(long contentKey) {
        return new TierChain(List.of(tier, below)).load(new Tier.Lookup(REQUEST, contentKey, origin.blocks, false));
    }

    /** The response a lookup of {@code contentKey} through the tier yields. */
    StoredResponse load(long contentKey) throws Exception {
        return start(contentKey).get(20, TimeUnit.SECONDS);
    }

    /** Asserts that {@code r} is the origin's response for {@code contentKey}, block by block. */
    void assertResponseOf(long contentKey, StoredResponse r) {
        assertEquals(origin.blocks, r.count());
        for (int i = 0; i < origin.blocks; i++) {
            assertEquals(origin.expected(REQUEST, contentKey, i), r.block(REQUEST, i), "block " + i);
        }
    }

    @Test
    void heldResponse_isAnsweredWithoutAskingBelow() throws Exception {
        assertResponseOf(HELD, load(HELD));
        assertEquals(List.of(), below.lookups);
    }

    @Test
    void miss_goesDownOnceForTheSameRequestKeyAndCount_andComesBackUnchanged() throws Exception {
        assertResponseOf(MISSING, load(MISSING));
        assertEquals(1, below.lookups.size(), "lookups passed down: " + below.lookups);
        Tier.Lookup down = below.lookups.get(0);
        assertEquals(REQUEST, down.requestId());
        assertEquals(MISSING, down.contentKey());
        assertEquals(origin.blocks, down.count());
    }

    @Test
    void secondLookupOfAMiss_goesDownAgain_onlyIfTheTierKeepsNothing() throws Exception {
        load(MISSING);
        assertResponseOf(MISSING, load(MISSING));
        assertEquals(keepsWhatComesBack() ? 1 : 2, below.lookups.size(), "lookups passed down: " + below.lookups);
    }

    @Test
    void errorFromBelow_failsTheLoad_andIsNotKept() throws Exception {
        below.answer = l -> CompletableFuture.failedFuture(new IllegalStateException("origin down"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> load(MISSING));
        assertInstanceOf(IllegalStateException.class, e.getCause());
        assertEquals("origin down", e.getCause().getMessage());
        below.answer = l -> CompletableFuture.completedFuture(RecordingTier.response(origin, l.contentKey()));
        assertResponseOf(MISSING, load(MISSING));
        assertEquals(2, below.lookups.size(), "the failure was not kept: the second lookup went down too");
    }

    @Test
    void load_returnsBeforeTheTierBelowHasAnswered() throws Exception {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        below.answer = l -> gate.thenApply(x -> RecordingTier.response(origin, l.contentKey()));
        CompletableFuture<StoredResponse> f = start(MISSING);
        assertFalse(f.isDone(), "nothing answers the lookup while the tier below holds it");
        gate.complete(null);
        assertResponseOf(MISSING, f.get(20, TimeUnit.SECONDS));
    }
}
