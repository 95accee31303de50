package dev.khameleon.examples.gallery;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.BindException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The command line's answers to bad input (one line on stderr and exit status 2), to --help and to --version. */
@Timeout(60)
class GalleryMainTest {

    private record Run(int status, String err, String out) {
    }

    private static Run run(String... args) {
        StringWriter err = new StringWriter();
        StringWriter out = new StringWriter();
        int status = GalleryMain.commandLine().setErr(new PrintWriter(err, true)).setOut(new PrintWriter(out, true))
                .execute(args);
        return new Run(status, err.toString(), out.toString());
    }

    private static void assertOneLineError(Run run, String expected) {
        assertEquals(2, run.status(), run.err());
        assertEquals("khameleon-gallery: " + expected + System.lineSeparator(), run.err());
    }

    @Test
    void help_printsUsageAndExitsZeroWithoutStarting() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = GalleryMain.commandLine().setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true)).execute("--help");
        assertEquals(0, status, err::toString);
        assertTrue(out.toString().startsWith("Usage: khameleon-gallery"), out::toString);
        assertTrue(out.toString().contains("--replay"), out::toString);
        assertTrue(out.toString().contains("--version"), out::toString);
        assertEquals("", err.toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"--version", "-V"})
    void version_printsTheProjectVersionAndExitsZeroWithoutStarting(String option) {
        String expected = System.getProperty("khameleon.gallery.expectedVersion");
        assumeTrue(expected != null, "system property khameleon.gallery.expectedVersion (set by the POM) is absent");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = GalleryMain.commandLine().setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true)).execute(option, "--port", "1"); // port 1 would fail to bind
        assertEquals(0, status, err::toString);
        assertEquals("khameleon-gallery " + expected + System.lineSeparator(), out.toString());
        assertEquals("", err.toString());
    }

    @Test
    void badOptionValue_isOneLineAndStatus2() {
        assertOneLineError(run("--rows", "many"),
                "Invalid value for option '--rows': 'many' is not an int (see --help)");
    }

    @Test
    void unknownOption_isOneLineAndStatus2() {
        assertOneLineError(run("--colour", "red"), "Unknown options: '--colour', 'red' (see --help)");
    }

    @Test
    void outOfRangeValue_isOneLineAndStatus2() {
        assertOneLineError(run("--port", "0", "--block-size", "10"),
                "blockSize must be in [512, 65536], was 10 (see --help)");
    }

    @Test
    void missingImagesFolder_isOneLineAndStatus2(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-folder");
        assertOneLineError(run("--port", "0", "--images", missing.toString()),
                "images must be a directory, was " + missing.toAbsolutePath() + " (see --help)");
    }

    @Test
    void missingReplayTrace_isOneLineAndStatus2(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-trace.json");
        assertOneLineError(run("--port", "0", "--rows", "1", "--cols", "1", "--replay", missing.toString()),
                "cannot replay " + missing + ": no such file");
    }

    @Test
    void replayTraceThatIsNotJson_isOneLineAndStatus2(@TempDir Path dir) throws IOException {
        Path trace = Files.writeString(dir.resolve("trace.json"), "[{\"e\": [1, 2,\n");
        Run run = run("--port", "0", "--rows", "1", "--cols", "1", "--replay", trace.toString());
        assertEquals(2, run.status(), run.err());
        assertTrue(run.err().startsWith("khameleon-gallery: cannot replay " + trace + ": not JSON ("), run.err());
        assertEquals(1, run.err().lines().count(), run.err());
    }

    @Test
    void imagesFolderWithoutImages_isOneLineAndStatus2(@TempDir Path dir) {
        assertOneLineError(run("--port", "0", "--rows", "1", "--cols", "1", "--images", dir.toString()),
                "no PNG or JPEG images (*.png, *.jpg, *.jpeg) in " + dir);
    }

    @Test
    void imagesFolderWithANonImage_isOneLineAndStatus2(@TempDir Path dir) throws IOException {
        Path fake = Files.writeString(dir.resolve("photo.jpg"), "not a picture");
        Run run = run("--port", "0", "--rows", "1", "--cols", "1", "--images", dir.toString());
        assertOneLineError(run, fake + " is not a PNG or JPEG image");
        assertTrue(run.out().startsWith("Building the gallery (1 x 1 pictures)"), "bound, then announced: " + run.out());
    }

    @Test
    void busyPort_isOneLineAndStatus2(@TempDir Path dir) throws IOException {
        try (ServerSocket busy = LinkEmulator.listen(0)) {
            int port = busy.getLocalPort();
            Run run = run("--port", String.valueOf(port), "--rows", "1", "--cols", "1");
            assertOneLineError(run,
                    "port " + port + " on 127.0.0.1 is already in use (choose another with --port, or 0 for any free one)");
            assertEquals("", run.out(), "nothing is announced as being built on a busy port");
        }
    }

    @Test
    void busyPort_isFoundBeforeTheImagesAreRead(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("photo.png"), "not a picture"); // would fail if the corpus were built first
        try (ServerSocket busy = LinkEmulator.listen(0)) {
            assertThrows(BindException.class, () -> GalleryServer.builder().port(busy.getLocalPort()).grid(1, 1)
                    .images(dir).start());
        }
    }

    @Test
    void cacheDirWithNoCache_isOneLineAndStatus2(@TempDir Path dir) {
        assertOneLineError(run("--port", "0", "--cache-dir", dir.toString(), "--no-cache"),
                "--cache-dir and --no-cache exclude each other (see --help)");
    }

    @Test
    void withoutATerminal_theBuildIsReportedInPlainLinesAndTheCacheIsUsedOnTheNextStart(@TempDir Path dir)
            throws IOException {
        // A start that ends by itself: --replay of a short trace.
        Path trace = Files.writeString(dir.resolve("trace.json"), "[{\"e\": [5, 5, 0]}, {\"e\": [60, 20, 100]}]");
        Path cache = dir.resolve("cache");
        String[] args = {"--port", "0", "--rows", "2", "--cols", "5", "--cache-dir", cache.toString(), "--replay",
                trace.toString()};
        Run first = run(args);
        assertEquals(0, first.status(), first.err());
        assertTrue(first.out().startsWith(String.join(System.lineSeparator(), "Building the gallery (2 x 5 pictures) ...",
                "encoding pictures 1/10 (10 %)", "encoding pictures 2/10 (20 %)")), first.out());
        assertTrue(first.out().contains("encoding pictures 10/10 (100 %)" + System.lineSeparator()), first.out());
        Run second = run(args);
        assertEquals(0, second.status(), second.err());
        assertTrue(second.out().startsWith("Building the gallery (2 x 5 pictures) ..." + System.lineSeparator()
                + "corpus loaded from the cache " + cache.toAbsolutePath().resolve("corpus-")), second.out());
        assertTrue(!second.out().contains("encoding pictures"), second.out());
    }

    @Test
    void badAllowedOrigin_isAParameterError() {
        Run run = run("--port", "0", "--allowed-origin", "gallery.example.org");
        assertEquals(2, run.status());
        assertTrue(run.err().contains("allowed origin must look like http://host[:port]"), run.err());
    }
}
