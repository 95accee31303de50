package dev.khameleon.server;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Issues and checks resume tokens: HMAC-SHA256 over the session id, the issue time, the
 * application's path, the cache size in blocks and the block size, so that any node holding the
 * same key accepts a token another node issued, and no client can forge one or change what it
 * describes.
 *
 * <p>A token is the base64url (unpadded) encoding of {@code payload ‖ mac}: the payload is a
 * version byte ({@value #VERSION}), the issue time (8 bytes, epoch milliseconds), {@code C}
 * (4 bytes), the block size (4 bytes), the first {@value #PATH_HASH_BYTES} bytes of the path's
 * SHA-256 (so a token's length does not depend on the path) and the session id (1-byte length,
 * UTF-8); the last {@value #MAC_BYTES} bytes are the HMAC of the payload.
 *
 * <p><b>Threading.</b> Immutable and thread-safe: each call makes its own {@link Mac}.
 */
final class ResumeTokens {
    /** The shortest key {@code KhameleonServer.Builder#resumeKey} accepts, in bytes. */
    static final int MIN_KEY_BYTES = 32;
    /** How far in the future an issue time may lie (clocks of nodes differ a little). */
    static final long MAX_CLOCK_SKEW_MILLIS = 60_000;

    // Refusal codes sent in welcome.resumeRefused (docs/protocol.md, section 8).
    static final String INVALID_TOKEN = "invalid_token";
    static final String EXPIRED = "expired";
    static final String GEOMETRY = "geometry_mismatch";
    /** The token already resumed a session on this server that is still open. */
    static final String IN_USE = "token_in_use";

    private static final byte VERSION = 1;
    private static final int MAC_BYTES = 32;
    private static final int PATH_HASH_BYTES = 16;
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final long ttlMillis;
    private final LongSupplier epochMillis;

    /**
     * @param key         at least {@value #MIN_KEY_BYTES} bytes; copied
     * @param ttlMillis   how long a token is accepted after it was issued, {@code > 0}
     * @param epochMillis the wall clock, in milliseconds since the epoch (shared meaning across nodes)
     */
    ResumeTokens(byte[] key, long ttlMillis, LongSupplier epochMillis) {
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException("resumeKey must have at least " + MIN_KEY_BYTES + " bytes, had "
                    + key.length);
        }
        this.key = new SecretKeySpec(key.clone(), ALGORITHM);
        this.ttlMillis = ttlMillis;
        this.epochMillis = epochMillis;
    }

    /** How long a token is accepted after it was issued, in milliseconds. */
    long ttlMillis() {
        return ttlMillis;
    }

    /** A token for session {@code sessionId} of the application at {@code path}, issued now. */
    String issue(String sessionId, String path, int cacheBlocks, int blockSize) {
        byte[] payload = payload(epochMillis.getAsLong(), sessionId, path, cacheBlocks, blockSize);
        byte[] token = Arrays.copyOf(payload, payload.length + MAC_BYTES);
        System.arraycopy(mac(payload), 0, token, payload.length, MAC_BYTES);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(token);
    }

    /**
     * Checks {@code token} for a session of the application at {@code path} with the given geometry.
     *
     * @return the session id the token was issued to; or, as the error, the refusal code:
     *     {@value #INVALID_TOKEN} (not a token of this key, or malformed), {@value #EXPIRED} (older
     *     than the time to live, or issued more than {@value #MAX_CLOCK_SKEW_MILLIS} ms in the
     *     future) or {@value #GEOMETRY} (another path, cache size or block size)
     */
    Verdict verify(String token, String path, int cacheBlocks, int blockSize) {
        byte[] raw;
        try {
            raw = Base64.getUrlDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            return Verdict.refused(INVALID_TOKEN);
        }
        if (raw.length <= MAC_BYTES + 1 + 8 + 4 + 4 + PATH_HASH_BYTES + 1) {
            return Verdict.refused(INVALID_TOKEN);
        }
        byte[] payload = Arrays.copyOf(raw, raw.length - MAC_BYTES);
        byte[] mac = Arrays.copyOfRange(raw, raw.length - MAC_BYTES, raw.length);
        if (!MessageDigest.isEqual(mac, mac(payload))) {
            return Verdict.refused(INVALID_TOKEN);
        }
        // Signed by a holder of the key, so the layout is ours; still read it defensively.
        try {
            ByteBuffer b = ByteBuffer.wrap(payload);
            if (b.get() != VERSION) {
                return Verdict.refused(INVALID_TOKEN);
            }
            long issued = b.getLong();
            int tokenCache = b.getInt();
            int tokenBlockSize = b.getInt();
            byte[] pathHash = new byte[PATH_HASH_BYTES];
            b.get(pathHash);
            byte[] idBytes = new byte[b.get() & 0xFF];
            b.get(idBytes);
            if (b.hasRemaining()) {
                return Verdict.refused(INVALID_TOKEN);
            }
            long now = epochMillis.getAsLong();
            if (now - issued > ttlMillis || issued - now > MAX_CLOCK_SKEW_MILLIS) {
                return Verdict.refused(EXPIRED);
            }
            if (tokenCache != cacheBlocks || tokenBlockSize != blockSize
                    || !MessageDigest.isEqual(pathHash, pathHash(path))) {
                return Verdict.refused(GEOMETRY);
            }
            return new Verdict(Optional.of(new String(idBytes, StandardCharsets.UTF_8)), null);
        } catch (java.nio.BufferUnderflowException e) {
            return Verdict.refused(INVALID_TOKEN);
        }
    }

    /** The outcome of {@link #verify}: the session id of an accepted token, else the refusal code. */
    record Verdict(Optional<String> sessionId, String refusal) {
        static Verdict refused(String code) {
            return new Verdict(Optional.empty(), code);
        }

        boolean accepted() {
            return sessionId.isPresent();
        }
    }

    private static byte[] payload(long issuedMillis, String sessionId, String path, int cacheBlocks, int blockSize) {
        byte[] idBytes = sessionId.getBytes(StandardCharsets.UTF_8);
        if (idBytes.length > 0xFF) {
            throw new IllegalArgumentException("session id too long for a resume token: " + idBytes.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.allocate(1 + 8 + 4 + 4 + PATH_HASH_BYTES + 1 + idBytes.length);
        b.put(VERSION).putLong(issuedMillis).putInt(cacheBlocks).putInt(blockSize)
                .put(pathHash(path)).put((byte) idBytes.length).put(idBytes);
        return b.array();
    }

    private static byte[] pathHash(String path) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(path.getBytes(StandardCharsets.UTF_8));
            return Arrays.copyOf(h, PATH_HASH_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    private byte[] mac(byte[] payload) {
        try {
            Mac m = Mac.getInstance(ALGORITHM);
            m.init(key);
            return m.doFinal(payload);
        } catch (GeneralSecurityException e) {
            // HmacSHA256 is required of every Java platform.
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
