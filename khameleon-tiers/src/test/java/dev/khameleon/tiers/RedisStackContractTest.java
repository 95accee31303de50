package dev.khameleon.tiers;

import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.testkit.BlockSourceContract;
import dev.khameleon.testing.RedisProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The BlockSource contract for the full stack: memory, Redis (a real redis-server) and origin. */
class RedisStackContractTest extends BlockSourceContract {
    private static RedisProcess redis;
    private TieredBlockSource source;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = RedisProcess.start("32mb");
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    @Override
    protected BlockSource source() {
        source = TieredBlockSource.builder(new CountingOrigin(40, 3, 128, 0)).memoryBytes(1024)
                .redis(redis.uri()).namespace("contract:" + System.nanoTime()).build();
        return source;
    }

    @AfterEach
    void close() {
        if (source != null) {
            source.close();
        }
    }
}
