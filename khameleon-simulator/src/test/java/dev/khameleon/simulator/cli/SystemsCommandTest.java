package dev.khameleon.simulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.simulator.CommandRun;
import dev.khameleon.simulator.SystemRegistry;
import dev.khameleon.simulator.SystemSpec;
import dev.khameleon.simulator.tool.Cli;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code khameleon-simulator systems} lists every registered system, one a line, with its group. */
class SystemsCommandTest {

    @Test
    void listsEveryRegisteredSystemOnceWithItsGroup() {
        CommandRun r = CommandRun.of(Cli.commandLine(), "systems");
        assertEquals(0, r.status(), r::err);
        List<String> lines = r.out().lines().toList();
        List<SystemSpec> all = SystemRegistry.all();
        assertEquals(all.size(), lines.size(), r::out);
        for (int i = 0; i < all.size(); i++) {
            String[] words = lines.get(i).trim().split("\\s+", 3);
            assertEquals(all.get(i).name(), words[0]);
            assertEquals(all.get(i).group().label(), words[1]);
            assertTrue(words[2].length() > 10, lines.get(i));
        }
        assertTrue(lines.get(0).startsWith("khameleon "), lines.get(0));
        assertEquals("", r.err());
    }

    @Test
    void simulate_refusesAnUnregisteredSystemInOneLine() {
        CommandRun r = CommandRun.ofCommand(Cli.commandLine(), "simulate", "--trace", "t", "--out", "o", "--systems",
                "khameleon,acc-0.5-3");
        assertEquals(2, r.status());
        assertTrue(r.err().startsWith("khameleon-simulator simulate: unknown system acc-0.5-3; known: "), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }
}
