package dev.khameleon.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Proves the leak check works: a buffer dropped without release is reported. */
class LeakDetectorSelfTest {

    @Test
    void droppedBuffer_isReported() {
        LeakDetectorExtension.forget();
        LeakDetectorExtension.quiet = true;
        boolean found = false;
        try {
            leak();
            for (int attempt = 0; attempt < 20 && !found; attempt++) {
                found = !LeakDetectorExtension.collectLeaks().isEmpty();
            }
        } finally {
            LeakDetectorExtension.forget();
            LeakDetectorExtension.quiet = false;
        }
        assertTrue(found, "the deliberately leaked buffer was reported");
    }

    private static void leak() {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer(64);
        b.writeInt(42);
    }
}
