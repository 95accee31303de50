package dev.khameleon.examples.gallery;

import dev.khameleon.testing.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The corpus cache: what it loads is what a build makes; what is cut short, corrupt or of other settings is rebuilt. */
class CorpusCacheTest {

    private static GalleryServer.Config config(Path cache, int rows, int cols, int blockSize, long seed, Path images) {
        return new GalleryServer.Config(0, rows, cols, images, seed, blockSize, 100, 0, 0, List.of(), cache);
    }

    private static GalleryServer.Config config(Path cache) {
        return config(cache, 2, 3, 4096, 42, null);
    }

    /**
     * Loads the corpus of {@code config} whose cache {@code file} the test damaged in the way
     * {@code reason} says, asserting the one warning that tells an operator why it is built again.
     */
    private static CorpusCache.Result rebuiltWarning(GalleryServer.Config config, Path file, String reason) {
        try (LogCapture warning = LogCapture.warnings(CorpusCache.class, "the corpus cache " + file + " is unusable")) {
            CorpusCache.Result result = corpus(config);
            assertEquals(List.of("the corpus cache " + file + " is unusable " + reason + "; building the corpus again"),
                    warning.messages());
            return result;
        }
    }

    private static CorpusCache.Result corpus(GalleryServer.Config config) {
        return GalleryServer.corpus(config, BuildProgress.silent());
    }

    private static Corpus fresh(GalleryServer.Config config) {
        return corpus(config(null, config.rows(), config.cols(), config.blockSize(), config.seed(), config.images()))
                .corpus();
    }

    private static List<Path> files(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.sorted().toList();
        }
    }

    @Test
    void secondStart_loadsACorpusByteIdenticalToAFreshBuild(@TempDir Path dir) throws IOException {
        GalleryServer.Config config = config(dir);
        CorpusCache.Result first = corpus(config);
        assertEquals(CorpusCache.Source.BUILT, first.source());
        assertEquals(List.of(first.file()), files(dir), "one file, no temporary left behind");
        assertTrue(first.file().getFileName().toString().matches("corpus-[0-9a-f]{20}\\.bin"), first.file().toString());

        CorpusCache.Result second = corpus(config);
        assertEquals(CorpusCache.Source.LOADED, second.source());
        assertEquals(first.file(), second.file());
        Corpus built = fresh(config);
        assertTrue(second.corpus().sameContent(built), "the loaded corpus has the bytes of a fresh build");
        assertTrue(first.corpus().sameContent(built), "building is deterministic");
        assertEquals(built.utility(), second.corpus().utility());
        for (int id = 0; id < built.requestCount(); id++) {
            assertEquals(built.blocks().get(id), second.corpus().blocks().get(id), "blocks of tile " + id);
        }
    }

    @Test
    void truncatedFile_isRebuiltNotServed(@TempDir Path dir) throws IOException {
        GalleryServer.Config config = config(dir);
        Path file = corpus(config).file();
        long size = Files.size(file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(size / 2);
        }
        CorpusCache.Result again = rebuiltWarning(config, file, "(cut short)");
        assertEquals(CorpusCache.Source.REBUILT, again.source());
        assertTrue(again.corpus().sameContent(fresh(config)));
        assertEquals(size, Files.size(file), "the rebuilt corpus replaced the cut file");
        assertEquals(CorpusCache.Source.LOADED, corpus(config).source());
    }

    @Test
    void fileCutAtItsDigest_isRebuilt(@TempDir Path dir) throws IOException {
        GalleryServer.Config config = config(dir);
        Path file = corpus(config).file();
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(f.length() - 1); // every block there, one byte of the digest missing
        }
        assertEquals(CorpusCache.Source.REBUILT, rebuiltWarning(config, file, "(cut short)").source());
    }

    @Test
    void flippedByte_isRebuiltNotServed(@TempDir Path dir) throws IOException {
        GalleryServer.Config config = config(dir);
        Path file = corpus(config).file();
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            long middle = f.length() / 2; // inside some block's payload: only the digest can tell
            f.seek(middle);
            int b = f.read();
            f.seek(middle);
            f.write(b ^ 0x01);
        }
        CorpusCache.Result again = rebuiltWarning(config, file, "(corrupt: its SHA-256 does not match)");
        assertEquals(CorpusCache.Source.REBUILT, again.source());
        assertTrue(again.corpus().sameContent(fresh(config)));
    }

    @Test
    void fileOfOtherSettings_isRebuiltNotServed(@TempDir Path dir) throws IOException {
        GalleryServer.Config seed42 = config(dir, 2, 3, 4096, 42, null);
        GalleryServer.Config seed43 = config(dir, 2, 3, 4096, 43, null);
        Path file42 = corpus(seed42).file();
        CorpusCache cache = new CorpusCache(dir);
        Path file43 = cache.fileFor(CorpusCache.key(GalleryServer.corpusSettings(seed43,
                dev.khameleon.core.image.ProgressiveJpegEncoder.builder().blockSize(4096).build())));
        Files.copy(file42, file43); // e.g. a hash collision, or a file copied by hand
        CorpusCache.Result result = rebuiltWarning(seed43, file43, "(it holds the corpus of other settings)");
        assertEquals(file43, result.file());
        assertEquals(CorpusCache.Source.REBUILT, result.source());
        assertTrue(result.corpus().sameContent(fresh(seed43)));
        assertTrue(!result.corpus().sameContent(fresh(seed42)));
    }

    @Test
    void changedSetting_misses(@TempDir Path dir) {
        CorpusCache.Result base = corpus(config(dir, 2, 3, 4096, 42, null));
        for (GalleryServer.Config changed : List.of(config(dir, 2, 3, 8192, 42, null), config(dir, 2, 3, 4096, 7, null),
                config(dir, 3, 2, 4096, 42, null))) {
            CorpusCache.Result result = corpus(changed);
            assertEquals(CorpusCache.Source.BUILT, result.source(), changed.toString());
            assertNotEquals(base.file(), result.file(), changed.toString());
            assertTrue(result.corpus().sameContent(fresh(changed)), changed.toString());
        }
        assertEquals(CorpusCache.Source.LOADED, corpus(config(dir, 2, 3, 4096, 42, null)).source());
    }

    @Test
    void changedPhotograph_misses(@TempDir Path dir) throws IOException {
        Path photos = Files.createDirectories(dir.resolve("photos"));
        Path photo = photos.resolve("a.png");
        BufferedImage image = new BufferedImage(640, 480, BufferedImage.TYPE_3BYTE_BGR);
        image.getGraphics().fillOval(100, 100, 300, 200);
        ImageIO.write(image, "png", photo.toFile());
        GalleryServer.Config config = config(dir.resolve("cache"), 1, 2, 4096, 42, photos);
        CorpusCache.Result first = corpus(config);
        assertEquals(CorpusCache.Source.BUILT, first.source());
        assertEquals(CorpusCache.Source.LOADED, corpus(config).source());

        Files.setLastModifiedTime(photo, FileTime.fromMillis(Files.getLastModifiedTime(photo).toMillis() - 60_000));
        CorpusCache.Result touched = corpus(config);
        assertEquals(CorpusCache.Source.BUILT, touched.source());
        assertNotEquals(first.file(), touched.file());

        Files.copy(photo, photos.resolve("b.png"), StandardCopyOption.COPY_ATTRIBUTES);
        assertEquals(CorpusCache.Source.BUILT, corpus(config).source(), "a photograph added");
    }

    @Test
    void keyNamesTheCodeTheRuntimeAndEverySetting() {
        String key = CorpusCache.key(GalleryServer.corpusSettings(config(null),
                dev.khameleon.core.image.ProgressiveJpegEncoder.builder().blockSize(4096).build()));
        for (String line : List.of("format=" + CorpusCache.FORMAT, "code=" + CorpusCache.codeHash(), "tiles=2x3",
                "thumbnail=24x18", "picture=480x360", "seed=42", "blockSize=4096", "quality=0.8", "pictures=synthetic")) {
            assertTrue(key.lines().anyMatch(line::equals), line + " in\n" + key);
        }
        assertTrue(key.lines().anyMatch(l -> l.startsWith("java=")), key);
        assertTrue(CorpusCache.codeHash().matches("[0-9a-f]{32}"), CorpusCache.codeHash());
    }

    @Test
    void unwritableFolder_stillServesTheBuiltCorpus(@TempDir Path dir) throws IOException {
        Path notAFolder = Files.writeString(dir.resolve("cache"), "a file where the folder should be");
        GalleryServer.Config config = config(notAFolder);
        CorpusCache.Result result;
        try (LogCapture warning = LogCapture.warnings(CorpusCache.class,
                "cannot write the corpus cache " + notAFolder)) {
            result = corpus(config);
            assertEquals(1, warning.messages().size(), "the operator is told the cache is not kept");
            assertTrue(warning.messages().get(0).endsWith("the next start builds the corpus again"),
                    warning.messages().get(0));
        }
        assertEquals(CorpusCache.Source.BUILT, result.source());
        assertTrue(result.corpus().sameContent(fresh(config)));
    }

    @Test
    void noCache_buildsWithoutAFile() {
        CorpusCache.Result result = corpus(config(null));
        assertEquals(CorpusCache.Source.BUILT, result.source());
        assertNull(result.file());
    }
}
