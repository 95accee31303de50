package dev.khameleon.tiers;

import dev.khameleon.testing.LogCapture;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The tier contract for the object-store tier alone, on an S3 API of its own per test (S3Proxy, in
 * memory). The tier runs on one thread, which takes its calls in order, so an object it stored after a
 * load is there for its next lookup without waiting for the write.
 */
class ObjectStoreTierContractTest extends StoreTierContract {
    private S3ProxyServer server;

    @Override
    Tier tier(StoredResponse held) throws Exception {
        server = S3ProxyServer.start("khameleon-contract");
        server.s3.putObject(p -> p.bucket(server.bucket).key("contract/r/" + HELD),
                RequestBody.fromBytes(held.encode()));
        return new ObjectStoreTier(server.s3, server.bucket, 1, Duration.ofSeconds(1), System::nanoTime,
                new KeySpace("contract", "node"), held.blockSize(), counters);
    }

    @Override
    boolean keepsWhatComesBack() {
        return true;
    }

    @Override
    void breakStore() throws Exception {
        server.stop();
    }

    @Override
    Class<?> failureLogger() {
        return ObjectStoreTier.class;
    }

    @Override
    String failureWarning() {
        // The stopped S3 API refuses the connection.
        return "unavailable (HttpHostConnectException";
    }

    @Override
    void closeStore() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void damagedObject_isRefused_loadedBelow_andReplaced() throws Exception {
        byte[] damaged = RecordingTier.response(origin, MISSING).encode();
        damaged[40] ^= 1;
        server.s3.putObject(p -> p.bucket(server.bucket).key("contract/r/" + MISSING), RequestBody.fromBytes(damaged));
        try (LogCapture refused = LogCapture.warnings(TieredBlockSource.class,
                "refused the object contract/r/" + MISSING)) {
            assertResponseOf(MISSING, load(MISSING));
            assertEquals(List.of("refused the object contract/r/" + MISSING
                    + " (checksum mismatch); computing the response again"), refused.messages());
        }
        assertEquals(1, counters.corruptValues.sum());
        assertResponseOf(MISSING, load(MISSING));
        assertEquals(1, below.lookups.size(), "the second lookup read the intact object stored after the first");
        assertEquals(1, counters.objectStoreHits.sum());
    }

    @Test
    void failingStore_isCountedOncePerCall() throws Exception {
        try (LogCapture warning = LogCapture.warnings(failureLogger(), failureWarning())) {
            server.stop();
            assertResponseOf(MISSING, load(MISSING));
            assertEquals(1, warning.messages().size(), "one warning for the outage: " + warning.messages());
        }
        assertEquals(1, counters.objectStoreFailures.sum(), "the failed read; no write follows a failed read");
    }
}
