package dev.khameleon.store;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Concurrent imports into one store: ids are allocated under the writer lock, so every import
 * gets its own ids and none overwrites another's responses.
 */
class ConcurrentImportTest {
    private static final int BLOCK = 512;
    private static final int FILES_PER_IMPORT = 4;

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void concurrentImportCommands_getDisjointIdsAndOverwriteNothing(@TempDir Path tmp) throws Exception {
        Path store = tmp.resolve("store");
        Map<Path, byte[]> contents = new HashMap<>();
        int importers = 3;
        int rounds = 3;
        ExecutorService pool = Executors.newFixedThreadPool(importers);
        try {
            List<String> outputs = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<String>> runs = new ArrayList<>();
                for (int i = 0; i < importers; i++) {
                    Path folder = inputFolder(tmp.resolve("in-" + round + "-" + i), contents);
                    runs.add(pool.submit(() -> {
                        ByteArrayOutputStream out = new ByteArrayOutputStream();
                        ByteArrayOutputStream err = new ByteArrayOutputStream();
                        start.await();
                        int status = StoreImport.run(new String[] {"--store", store.toString(), "--block-size",
                                String.valueOf(BLOCK), "--lock-wait", "30", folder.toString()},
                                new PrintStream(out, true, StandardCharsets.UTF_8),
                                new PrintStream(err, true, StandardCharsets.UTF_8));
                        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
                        return out.toString(StandardCharsets.UTF_8);
                    }));
                }
                start.countDown();
                for (Future<String> run : runs) {
                    outputs.add(run.get(30, TimeUnit.SECONDS));
                }
            }
            assertStoreHoldsEveryFileOnce(store, outputs, contents, importers * rounds * FILES_PER_IMPORT);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void concurrentImportProcesses_getDisjointIdsAndOverwriteNothing(@TempDir Path tmp) throws Exception {
        Path store = tmp.resolve("store");
        Map<Path, byte[]> contents = new HashMap<>();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> processes = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Path folder = inputFolder(tmp.resolve("in-" + i), contents);
                Path log = tmp.resolve("out-" + i + ".txt");
                logs.add(log);
                processes.add(new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                        StoreImport.class.getName(), "--store", store.toString(), "--block-size",
                        String.valueOf(BLOCK), "--lock-wait", "60", folder.toString())
                        .redirectOutput(log.toFile()).redirectErrorStream(true).start());
            }
            List<String> outputs = new ArrayList<>();
            for (int i = 0; i < processes.size(); i++) {
                assertTrue(processes.get(i).waitFor(90, TimeUnit.SECONDS), "import process " + i + " did not finish");
                String out = Files.readString(logs.get(i));
                assertEquals(0, processes.get(i).exitValue(), out);
                outputs.add(out);
            }
            assertStoreHoldsEveryFileOnce(store, outputs, contents, 2 * FILES_PER_IMPORT);
        } finally {
            processes.forEach(Process::destroyForcibly);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void writersWaitingForTheLock_appendUnderDisjointIds(@TempDir Path dir) throws Exception {
        ProgressiveEncoder<byte[]> encoder = ProgressiveEncoder.fixedBlocks(BLOCK);
        int writers = 4;
        int each = 3;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<int[]>> runs = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                runs.add(pool.submit(() -> {
                    start.await();
                    int[] ids = new int[each];
                    try (StoreWriter sw = StoreWriter.open(dir, BLOCK, Duration.ofSeconds(30))) {
                        for (int k = 0; k < each; k++) {
                            ids[k] = sw.append(payload(writer, k), encoder);
                        }
                        sw.commit();
                    }
                    return ids;
                }));
            }
            start.countDown();
            Map<Integer, byte[]> expected = new TreeMap<>();
            for (int w = 0; w < writers; w++) {
                int[] ids = runs.get(w).get(30, TimeUnit.SECONDS);
                for (int k = 0; k < each; k++) {
                    byte[] previous = expected.put(ids[k], payload(w, k));
                    assertEquals(null, previous, "id " + ids[k] + " was handed to two writers");
                }
            }
            assertEquals(writers * each, expected.size());
            try (FileBlockStore s = FileBlockStore.builder(dir).strategy(ReadStrategy.NAIVE).ioThreads(1).build()) {
                assertEquals(writers * each, s.requestCount());
                for (Map.Entry<Integer, byte[]> e : expected.entrySet()) {
                    assertArrayEquals(e.getValue(), response(s, e.getKey()), "response " + e.getKey());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void lockWait_endsWithAClearErrorWhileAnotherWriterHoldsTheStore(@TempDir Path dir) throws Exception {
        try (StoreWriter holder = StoreWriter.open(dir, BLOCK)) {
            IOException e = assertThrows(IOException.class,
                    () -> StoreWriter.open(dir, BLOCK, Duration.ofMillis(200)));
            assertTrue(e.getMessage().contains("another StoreWriter holds the store at " + dir)
                    && e.getMessage().contains("did not release it within PT0.2S"), e.getMessage());
            assertEquals(0, holder.nextFreeId());
        }
    }

    @Test
    void nextFreeId_countsThePublishedAndTheAddedIds(@TempDir Path dir) throws Exception {
        ProgressiveEncoder<byte[]> encoder = ProgressiveEncoder.fixedBlocks(BLOCK);
        Corpus.random(41, 3, BLOCK, 1000).importInto(dir);
        try (StoreWriter w = StoreWriter.open(dir, BLOCK)) {
            assertEquals(3, w.nextFreeId());
            w.add(1, new byte[] {1}, encoder);
            assertEquals(3, w.nextFreeId(), "replacing an id does not move the end");
            assertEquals(3, w.append(new byte[] {2}, encoder));
            assertEquals(4, w.nextFreeId());
        }
    }

    @Test
    void importCommand_refusesANegativeLockWait(@TempDir Path dir) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = StoreImport.run(new String[] {"--store", dir.toString(), "--block-size", "512", "--lock-wait",
                "-1", dir.toString()}, new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, status);
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--lock-wait must be in [0, 86400], was -1"),
                err.toString(StandardCharsets.UTF_8));
    }

    /** A folder of distinct files whose contents name the folder and the file. */
    private static Path inputFolder(Path folder, Map<Path, byte[]> contents) throws IOException {
        Files.createDirectories(folder);
        for (int f = 0; f < FILES_PER_IMPORT; f++) {
            Path file = folder.resolve("file-" + f);
            // Two to three blocks each, so a response is more than one write.
            byte[] bytes = (folder.getFileName() + "/" + f + " ").repeat(1 + 2 * BLOCK / 10)
                    .getBytes(StandardCharsets.US_ASCII);
            Files.write(file, bytes);
            contents.put(file, bytes);
        }
        return folder;
    }

    private static byte[] payload(int writer, int k) {
        return ("writer " + writer + " response " + k).getBytes(StandardCharsets.US_ASCII);
    }

    /** Checks the ids the imports printed are disjoint, dense, and hold exactly the files printed. */
    private static void assertStoreHoldsEveryFileOnce(Path store, List<String> outputs, Map<Path, byte[]> contents,
            int total) throws Exception {
        Map<Integer, Path> printed = new TreeMap<>();
        for (String out : outputs) {
            for (String line : out.split("\n")) {
                if (line.contains("\t")) {
                    String[] parts = line.split("\t", 2);
                    Path previous = printed.put(Integer.parseInt(parts[0]), Path.of(parts[1].strip()));
                    assertEquals(null, previous, "id " + parts[0] + " was printed by two imports");
                }
            }
        }
        assertEquals(total, printed.size(), String.join("\n", outputs));
        try (FileBlockStore s = FileBlockStore.builder(store).strategy(ReadStrategy.NAIVE).ioThreads(1).build()) {
            assertEquals(total, s.requestCount());
            for (Map.Entry<Integer, Path> e : printed.entrySet()) {
                assertArrayEquals(contents.get(e.getValue()), response(s, e.getKey()),
                        "response " + e.getKey() + " should hold " + e.getValue());
            }
        }
    }

    /** The content of every block of {@code id}, concatenated. */
    private static byte[] response(FileBlockStore s, int id) throws Exception {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (int b = 0; b < s.blockCount(id); b++) {
            Block block = s.fetch(id, b).toCompletableFuture().get(10, TimeUnit.SECONDS);
            ByteBuffer content = block.content();
            byte[] bytes = new byte[content.remaining()];
            content.get(bytes);
            all.write(bytes);
        }
        return all.toByteArray();
    }
}
