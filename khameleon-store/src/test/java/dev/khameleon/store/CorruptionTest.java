package dev.khameleon.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CorruptionTest {

    @ParameterizedTest
    @EnumSource(ReadStrategy.class)
    void flippedByte_failsThatBlockWithErrorNamingFileRequestAndBlock(ReadStrategy strategy, @TempDir Path dir)
            throws Exception {
        Corpus corpus = Corpus.random(11, 6, 4096, 5 * 4096);
        corpus.importInto(dir);
        int request = 4;
        int block = corpus.count(request) - 1;
        StoreIndex.Entry entry = StoreIndex.read(dir).entry(request);
        Path segment = dir.resolve(StoreIndex.segmentName(entry.segment()));
        flipByte(segment, entry.offset() + (long) block * 4096 + 17);

        try (FileBlockStore store = FileBlockStore.builder(dir).strategy(strategy).build()) {
            for (int b = 0; b < block; b++) {
                assertEquals(corpus.block(request, b), store.fetch(request, b).toCompletableFuture().get());
            }
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> store.fetch(request, block).toCompletableFuture().get());
            BlockCorruptedException c = assertInstanceOf(BlockCorruptedException.class, e.getCause());
            assertEquals(request, c.requestId());
            assertEquals(block, c.blockIndex());
            assertEquals(segment, c.file());
            assertTrue(c.getMessage().contains("request 4 block " + block) && c.getMessage().contains(segment.toString()),
                    c.getMessage());
            assertEquals(1, store.stats().corruptBlocks());
            assertEquals(corpus.block(3, 0), store.fetch(3, 0).toCompletableFuture().get());
        }
    }

    @Test
    void damagedIndex_refusesToOpenWithErrorNamingIt(@TempDir Path dir) throws Exception {
        Corpus.random(12, 3, 512, 2000).importInto(dir);
        flipByte(dir.resolve(StoreIndex.INDEX_FILE), 40);
        IOException e = assertThrows(IOException.class, () -> FileBlockStore.open(dir));
        assertTrue(e.getMessage().contains("index") && e.getMessage().contains("corrupt"), e.getMessage());
    }

    static void flipByte(Path file, long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, position);
            one.flip();
            one.put(0, (byte) (one.get(0) ^ 0x5a));
            ch.write(one, position);
        }
    }
}
