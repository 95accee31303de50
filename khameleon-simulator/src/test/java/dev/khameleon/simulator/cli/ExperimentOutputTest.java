package dev.khameleon.simulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Where {@code experiment} writes: under the git-ignored out/ unless told otherwise. */
class ExperimentOutputTest {

    @Test
    void defaultOut_isUnderOut_whichGitIgnores() throws IOException {
        ExperimentCommand command = new ExperimentCommand();
        new CommandLine(command).parseArgs("fig8");
        assertEquals(Path.of("out", "experiments"), command.out);
        assertTrue(Files.readAllLines(Path.of("../.gitignore")).contains("out/"), ".gitignore lists out/");
    }

    @Test
    void outOption_isHonoured() {
        ExperimentCommand command = new ExperimentCommand();
        new CommandLine(command).parseArgs("fig8", "--out", "docs/results");
        assertEquals(Path.of("docs", "results"), command.out);
    }
}
