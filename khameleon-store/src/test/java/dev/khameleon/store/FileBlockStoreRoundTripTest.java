package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.ScheduleChunk;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FileBlockStoreRoundTripTest {

    static Stream<Arguments> strategiesAndBlockSizes() {
        List<Arguments> args = new ArrayList<>();
        for (ReadStrategy s : ReadStrategy.values()) {
            for (int blockSize : new int[] {4096, 1000}) {
                for (DirectIo io : new DirectIo[] {DirectIo.OFF, DirectIo.AUTO}) {
                    args.add(Arguments.of(s, blockSize, io));
                }
            }
        }
        return args.stream();
    }

    @ParameterizedTest(name = "{0}, block size {1}, direct I/O {2}")
    @MethodSource("strategiesAndBlockSizes")
    void importThenFetch_returnsEveryBlockByteForByte(ReadStrategy strategy, int blockSize, DirectIo io,
            @TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(42, 40, blockSize, 12 * blockSize);
        ImportSummary summary = corpus.importInto(dir);
        assertEquals(40, summary.totalResponses());
        try (FileBlockStore store = FileBlockStore.builder(dir).strategy(strategy).directIo(io)
                .readAheadBytes(4 * blockSize).poolBytes(64L * blockSize + (1 << 16)).build()) {
            assertEquals(40, store.requestCount());
            assertEquals(blockSize, store.blockSize());
            List<CompletableFuture<Block>> futures = new ArrayList<>();
            for (int r = 0; r < corpus.size(); r++) {
                assertEquals(corpus.count(r), store.blockCount(r));
                int[] ids = new int[corpus.count(r)];
                int[] idx = new int[corpus.count(r)];
                for (int b = 0; b < ids.length; b++) {
                    ids[b] = r;
                    idx[b] = b;
                }
                store.prefetch(ScheduleChunk.of(0, ids, idx));
                for (int b = 0; b < corpus.count(r); b++) {
                    futures.add(store.fetch(r, b).toCompletableFuture());
                }
            }
            int k = 0;
            for (int r = 0; r < corpus.size(); r++) {
                for (int b = 0; b < corpus.count(r); b++) {
                    assertEquals(corpus.block(r, b), futures.get(k++).get(), "request " + r + " block " + b);
                }
            }
            assertEquals(futures.size(), store.stats().blocksServed());
        }
    }

    @Test
    void fetchedResponse_reassemblesToTheImportedBytes(@TempDir Path dir) throws Exception {
        Corpus corpus = Corpus.random(7, 5, 512, 5000);
        corpus.importInto(dir);
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            for (int r = 0; r < corpus.size(); r++) {
                ByteBuffer whole = ByteBuffer.allocate(store.blockCount(r) * 512);
                for (int b = 0; b < store.blockCount(r); b++) {
                    whole.put(store.fetch(r, b).toCompletableFuture().get().content());
                }
                assertArrayEquals(corpus.responses.get(r), java.util.Arrays.copyOf(whole.array(), whole.position()));
            }
        }
    }

    @Test
    void fetch_outOfRange_failsWithClearMessage(@TempDir Path dir) throws Exception {
        Corpus.random(1, 3, 256, 1000).importInto(dir);
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> store.fetch(3, 0).toCompletableFuture().get());
            assertInstanceOf(IllegalArgumentException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("request id 3 out of range"), e.getCause().getMessage());
            e = assertThrows(ExecutionException.class, () -> store.fetch(0, 99).toCompletableFuture().get());
            assertTrue(e.getCause().getMessage().contains("block index 99"), e.getCause().getMessage());
            assertThrows(IllegalArgumentException.class, () -> store.blockCount(-1));
        }
    }

    @Test
    void secondImport_appendsAndReplacesResponses(@TempDir Path dir) throws Exception {
        Corpus first = Corpus.random(3, 4, 256, 2000);
        first.importInto(dir);
        byte[] replacement = "replaced".getBytes(StandardCharsets.UTF_8);
        byte[] appended = "appended".getBytes(StandardCharsets.UTF_8);
        ImportSummary s = FileBlockStore.importResponses(dir,
                dev.khameleon.core.spi.ProgressiveEncoder.fixedBlocks(256), 3, List.of(replacement, appended));
        assertEquals(2, s.generation());
        assertEquals(5, s.totalResponses());
        try (FileBlockStore store = FileBlockStore.open(dir)) {
            assertEquals(5, store.requestCount());
            assertEquals(first.block(0, 0), store.fetch(0, 0).toCompletableFuture().get());
            assertEquals("replaced", StandardCharsets.UTF_8.decode(store.fetch(3, 0).toCompletableFuture().get()
                    .content()).toString());
            assertEquals("appended", StandardCharsets.UTF_8.decode(store.fetch(4, 0).toCompletableFuture().get()
                    .content()).toString());
        }
    }

    @Test
    void importCommand_storesFilesOfAFolderInNameOrder(@TempDir Path tmp) throws Exception {
        Path in = Files.createDirectory(tmp.resolve("in"));
        Files.write(in.resolve("b.jpg"), new byte[] {4, 5, 6, 7, 8});
        Files.write(in.resolve("a.jpg"), new byte[] {1, 2, 3});
        Path store = tmp.resolve("store");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = StoreImport.run(new String[] {"--store", store.toString(), "--block-size", "4", in.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, status);
        String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(printed.contains("0\t" + in.resolve("a.jpg")), printed);
        try (FileBlockStore s = FileBlockStore.open(store)) {
            assertEquals(2, s.requestCount());
            assertEquals(2, s.blockCount(1));
            Block last = s.fetch(1, 1).toCompletableFuture().get();
            assertEquals(3, last.padding());
            assertEquals(8, last.content().get(0));
        }
    }

    @Test
    void importCommand_rejectsBadArguments() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = StoreImport.run(new String[] {"--block-size", "0"}, System.out,
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, status);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--store"));
    }

    @Test
    void readStrategy_parsesConfigNames() {
        assertEquals(ReadStrategy.SERIALIZED_READAHEAD, ReadStrategy.fromName("serialized-readahead"));
        assertEquals(ReadStrategy.SCHEDULE_AWARE, ReadStrategy.fromName("SCHEDULE_AWARE"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReadStrategy.fromName("fast"));
        assertTrue(e.getMessage().contains("'fast'") && e.getMessage().contains("naive"), e.getMessage());
    }

    @Test
    void builder_rejectsBadSettingsNamingThem(@TempDir Path dir) throws Exception {
        FileBlockStore.Builder b = FileBlockStore.builder(dir);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.ioThreads(0)).getMessage()
                .contains("ioThreads"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.readAheadBytes(0)).getMessage()
                .contains("readAheadBytes"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> b.poolBytes(0)).getMessage()
                .contains("poolBytes"));
        Corpus.random(1, 2, 4096, 100).importInto(dir);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FileBlockStore.builder(dir)
                .strategy(ReadStrategy.SERIALIZED_READAHEAD).readAheadBytes(1 << 20).poolBytes(1 << 20).build());
        assertTrue(e.getMessage().contains("poolBytes"), e.getMessage());
    }
}
