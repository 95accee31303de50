package dev.khameleon.core.spi;

import dev.khameleon.core.Block;
import dev.khameleon.core.testkit.ProgressiveEncoderContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProgressiveEncoderTest {

    @Nested
    class FixedBlocks extends ProgressiveEncoderContract<byte[]> {
        @Override
        protected ProgressiveEncoder<byte[]> encoder() {
            return ProgressiveEncoder.fixedBlocks(64);
        }

        @Override
        protected List<byte[]> sampleResponses() {
            SplittableRandom rnd = new SplittableRandom(5);
            return List.of(new byte[0], new byte[1], randomBytes(rnd, 63), randomBytes(rnd, 64),
                    randomBytes(rnd, 65), randomBytes(rnd, 1000));
        }
    }

    @Nested
    class SingleBlock extends ProgressiveEncoderContract<String> {
        @Override
        protected ProgressiveEncoder<String> encoder() {
            return ProgressiveEncoder.singleBlock(32, s -> s.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        protected List<String> sampleResponses() {
            return List.of("", "hello", "x".repeat(32));
        }
    }

    @ParameterizedTest
    @CsvSource({"0, 16", "1, 16", "15, 16", "16, 16", "17, 16", "1000, 7", "4096, 4096", "4097, 4096"})
    void split_neverDropsTheLastPartialBlock(int length, int blockSize) {
        byte[] bytes = randomBytes(new SplittableRandom(length), length);
        List<Block> blocks = ProgressiveEncoder.split(9, bytes, blockSize);
        assertEquals(Math.max(1, (length + blockSize - 1) / blockSize), blocks.size());
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (Block b : blocks) {
            byte[] content = new byte[b.content().remaining()];
            b.content().get(content);
            joined.writeBytes(content);
        }
        assertArrayEquals(bytes, joined.toByteArray());
        Block last = blocks.get(blocks.size() - 1);
        assertEquals((long) blocks.size() * blockSize - length, last.padding());
    }

    @Test
    void singleBlock_rejectsOversizedResponse() {
        ProgressiveEncoder<String> e = ProgressiveEncoder.singleBlock(4, s -> s.getBytes(StandardCharsets.UTF_8));
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> e.encode(2, "too long"));
        assertTrue(ex.getMessage().contains("request 2"), ex.getMessage());
    }

    @Test
    void factories_rejectNonPositiveBlockSize() {
        assertThrows(IllegalArgumentException.class, () -> ProgressiveEncoder.fixedBlocks(0));
        assertThrows(IllegalArgumentException.class, () -> ProgressiveEncoder.singleBlock(-1, (Object o) -> new byte[0]));
    }

    static byte[] randomBytes(SplittableRandom rnd, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) rnd.nextInt(256);
        }
        return b;
    }
}
