package dev.khameleon.simulator.image;

import dev.khameleon.simulator.tool.Cli;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UtilityCommandTest {

    private static String runCapturing(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            assertEquals(0, Cli.run(args));
        } finally {
            System.setOut(original);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void utility_printsAMonotoneCurveEndingAtOneForKodakPhotos() {
        Path kodak = Path.of(System.getProperty("khameleon.shared.data", "../shared/data"), "images", "kodak");
        Assumptions.assumeTrue(Files.isDirectory(kodak), "Kodak images absent: " + kodak.toAbsolutePath());
        String out = runCapturing("utility", "--images", kodak.toString(), "--limit", "2", "--points", "4");
        assertTrue(out.contains("| fraction of blocks | utility (mean SSIM) |"), out);
        assertTrue(out.contains("| 1.00 | 1.000 |"), out);
        assertTrue(out.contains("2 images"), out);
    }

    @Test
    void utility_rejectsAFolderWithoutImages(@TempDir Path empty) {
        assertNotEquals(0, Cli.run("utility", "--images", empty.toString()));
        assertNotEquals(0, Cli.run("utility", "--images", empty.resolve("missing").toString()));
        assertNotEquals(0, Cli.run("utility", "--images", empty.toString(), "--block-size", "0"));
    }
}
