package dev.khameleon.simulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.SystemRegistry;
import dev.khameleon.simulator.SystemSpec;
import dev.khameleon.simulator.tool.Cli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code khameleon-simulator systems} lists every registered system, one a line, with its group. */
class SystemsCommandTest {

    @Test
    void listsEveryRegisteredSystemOnceWithItsGroup() {
        CommandLine cli = Cli.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
        assertEquals(0, cli.execute("systems"), err::toString);
        List<String> lines = out.toString().lines().toList();
        List<SystemSpec> all = SystemRegistry.all();
        assertEquals(all.size(), lines.size(), out::toString);
        for (int i = 0; i < all.size(); i++) {
            String[] words = lines.get(i).trim().split("\\s+", 3);
            assertEquals(all.get(i).name(), words[0]);
            assertEquals(all.get(i).group().label(), words[1]);
            assertTrue(words[2].length() > 10, lines.get(i));
        }
        assertTrue(lines.get(0).startsWith("khameleon "), lines.get(0));
        assertEquals("", err.toString());
    }

    @Test
    void simulate_refusesAnUnregisteredSystemInOneLine() {
        CommandLine cli = Cli.commandLine();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(new StringWriter(), true)).setErr(new PrintWriter(err, true));
        assertEquals(2, cli.execute("simulate", "--trace", "t", "--out", "o", "--systems", "khameleon,acc-0.5-3"));
        assertTrue(err.toString().startsWith("khameleon-simulator simulate: unknown system acc-0.5-3; known: "),
                err.toString());
        assertEquals(1, err.toString().lines().count(), err.toString());
    }
}
