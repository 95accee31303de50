package dev.khameleon.core.spi;

import dev.khameleon.core.Block;
import dev.khameleon.core.testkit.BlockSourceContract;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InMemoryBlockSourceTest extends BlockSourceContract {

    @Override
    protected BlockSource source() {
        ProgressiveEncoder<byte[]> encoder = ProgressiveEncoder.fixedBlocks(100);
        SplittableRandom rnd = new SplittableRandom(11);
        List<List<Block>> responses = new ArrayList<>();
        for (int r = 0; r < 20; r++) {
            responses.add(encoder.encode(r, ProgressiveEncoderTest.randomBytes(rnd, rnd.nextInt(1, 1000))));
        }
        return BlockSource.inMemory(100, responses);
    }

    @Test
    void inMemory_rejectsMisnumberedOrMissizedBlocks() {
        ProgressiveEncoder<byte[]> encoder = ProgressiveEncoder.fixedBlocks(10);
        List<Block> r0 = encoder.encode(0, new byte[25]);
        List<Block> wrongId = encoder.encode(5, new byte[25]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BlockSource.inMemory(10, List.of(r0, wrongId)));
        assertTrue(e.getMessage().contains("response 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> BlockSource.inMemory(20, List.of(r0)));
        assertThrows(IllegalArgumentException.class, () -> BlockSource.inMemory(10, List.of(r0, List.of())));
        assertThrows(IllegalArgumentException.class, () -> BlockSource.inMemory(10, List.of()));
    }
}
