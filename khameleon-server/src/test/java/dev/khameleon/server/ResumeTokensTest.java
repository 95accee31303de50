package dev.khameleon.server;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ResumeTokens}: what a token proves, and every way one is refused. */
class ResumeTokensTest {
    private static final byte[] KEY = key(1);
    private static final long TTL = 60_000;

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private final ResumeTokens tokens = new ResumeTokens(KEY, TTL, clock::get);

    static byte[] key(int seed) {
        byte[] k = new byte[32];
        Arrays.fill(k, (byte) seed);
        return k;
    }

    @Test
    void verify_acceptsItsOwnToken_onAnyNodeWithTheSameKey() {
        String t = tokens.issue("0001abcdef", "/gallery", 500, 4096);
        ResumeTokens otherNode = new ResumeTokens(key(1), TTL, clock::get);
        ResumeTokens.Verdict v = otherNode.verify(t, "/gallery", 500, 4096);
        assertTrue(v.accepted());
        assertEquals("0001abcdef", v.sessionId().orElseThrow());
        assertTrue(t.matches("[A-Za-z0-9_-]+"), "base64url without padding: " + t);
    }

    @Test
    void verify_refusesAnotherKey_aChangedByte_andGarbage() {
        String t = tokens.issue("s", "/gallery", 500, 4096);
        assertEquals(ResumeTokens.INVALID_TOKEN,
                new ResumeTokens(key(2), TTL, clock::get).verify(t, "/gallery", 500, 4096).refusal());
        byte[] raw = Base64.getUrlDecoder().decode(t);
        for (int i = 0; i < raw.length; i++) {
            byte[] tampered = raw.clone();
            tampered[i] ^= 1;
            String bad = Base64.getUrlEncoder().withoutPadding().encodeToString(tampered);
            assertEquals(ResumeTokens.INVALID_TOKEN, tokens.verify(bad, "/gallery", 500, 4096).refusal(), "byte " + i);
        }
        for (String garbage : new String[] {"", "!!!", "AAAA", t.substring(0, t.length() - 3)}) {
            assertEquals(ResumeTokens.INVALID_TOKEN, tokens.verify(garbage, "/gallery", 500, 4096).refusal(), garbage);
        }
    }

    @Test
    void verify_refusesAfterTheTimeToLive_andFromTooFarInTheFuture() {
        String t = tokens.issue("s", "/a", 10, 64);
        clock.addAndGet(TTL);
        assertTrue(tokens.verify(t, "/a", 10, 64).accepted(), "valid for exactly the time to live");
        clock.incrementAndGet();
        assertEquals(ResumeTokens.EXPIRED, tokens.verify(t, "/a", 10, 64).refusal());
        ResumeTokens ahead = new ResumeTokens(KEY, TTL, () -> clock.get() + ResumeTokens.MAX_CLOCK_SKEW_MILLIS + 1);
        assertEquals(ResumeTokens.EXPIRED, tokens.verify(ahead.issue("s", "/a", 10, 64), "/a", 10, 64).refusal());
    }

    @Test
    void verify_refusesAnotherGeometry() {
        String t = tokens.issue("s", "/a", 10, 64);
        assertEquals(ResumeTokens.GEOMETRY, tokens.verify(t, "/b", 10, 64).refusal());
        assertEquals(ResumeTokens.GEOMETRY, tokens.verify(t, "/a", 11, 64).refusal());
        assertEquals(ResumeTokens.GEOMETRY, tokens.verify(t, "/a", 10, 128).refusal());
    }

    @Test
    void keyShorterThan32Bytes_isRefused_andTheKeyIsCopied() {
        assertThrows(IllegalArgumentException.class, () -> new ResumeTokens(new byte[31], TTL, clock::get));
        assertThrows(IllegalArgumentException.class, () -> KhameleonServer.builder().resumeKey(new byte[31]));
        assertThrows(IllegalArgumentException.class,
                () -> KhameleonServer.builder().resumeTtl(java.time.Duration.ofMillis(999)));
        assertThrows(IllegalArgumentException.class,
                () -> KhameleonServer.builder().resumeTtl(java.time.Duration.ofHours(25)));
        byte[] k = key(3);
        ResumeTokens t = new ResumeTokens(k, TTL, clock::get);
        String token = t.issue("s", "/a", 10, 64);
        Arrays.fill(k, (byte) 0);
        assertTrue(t.verify(token, "/a", 10, 64).accepted(), "changing the caller's array changes nothing");
        assertArrayEquals(key(0), k);
    }
}
