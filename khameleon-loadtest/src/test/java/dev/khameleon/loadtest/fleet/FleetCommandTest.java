package dev.khameleon.loadtest.fleet;

import dev.khameleon.simulator.CommandRun;
import dev.khameleon.loadtest.Cli;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fleet command's refusals of bad options (exit status 2, one line naming the option), and its tables. */
class FleetCommandTest {
    /** Runs {@code khameleon-loadtest fleet args}; returns {exit status, stdout, stderr}. */
    private static String[] execute(String... args) {
        return CommandRun.ofCommand(Cli.commandLine(), "fleet", args).asArray();
    }

    @Test
    void badOptions_exitWithStatus2NamingTheOption() {
        for (List<String> c : List.of(
                List.of("--calibrate", "1", "--validate", "3", "calibrate"),
                List.of("--calibrate", "2,2", "--validate", "3", "calibrate"),
                List.of("--calibrate", "1,9", "--validate", "3", "nodes 9"),
                List.of("--sessions-per-node", "0", "--validate", "3", "--sessions-per-node 0"),
                List.of("--rate", "10", "--validate", "3", "--rate"),
                List.of("--seconds", "0", "--validate", "3", "--seconds 0"),
                List.of("--warmup", "-1", "--validate", "3", "--warmup -1"),
                List.of("--memory-bytes", "-1", "--validate", "3", "--memory-bytes -1"),
                List.of("--target-sessions", "0", "--validate", "3", "--target-sessions"),
                List.of("--node-cores", "-1", "--validate", "3", "--node-cores"),
                List.of("--redis-memory", "0", "--validate", "3", "--redis-memory"),
                List.of("--redis-memory", "512kb", "--validate", "3", "--redis-memory"),
                List.of("--redis-memory", "lots", "--validate", "3", "--redis-memory"),
                List.of("--haproxy", "/nonexistent/haproxy", "--validate", "3", "haproxy"))) {
            String[] r = execute(c.subList(0, c.size() - 1).toArray(String[]::new));
            assertEquals("2", r[0], c + ": " + r[2]);
            assertTrue(r[2].startsWith("khameleon-loadtest fleet: ") && r[2].contains(c.get(c.size() - 1)),
                    c + ": " + r[2]);
        }
    }

    @Test
    void comparisonTable_givesTheSignedErrorOfEachQuantity() {
        FleetModel.FleetRates a = new FleetModel.FleetRates(1, 2, 0.2, 2000, 20, 10, 4, 4);
        FleetModel.FleetRates b = new FleetModel.FleetRates(2, 4, 0.4, 4000, 40, 20, 8, 8);
        FleetModel m = FleetModel.fit(List.of(a, b));
        // Measured 10 % below what the model predicts for 6 sessions on every rate but the origin's.
        FleetModel.FleetRates measured = new FleetModel.FleetRates(3, 6, 0.54, 5400, 54, 27, 12, 12);
        String t = FleetCommand.comparisonTable(m, measured);
        assertTrue(t.contains("| CPU cores | 0.54 | 0.60 | +11.1 % |"), t);
        assertTrue(t.contains("| egress MB/s | 0.01 | 0.01 | +11.1 % |"), t);
        assertTrue(t.contains("| origin computations/s | 12.0 | 12.0 | +0.0 % |"), t);
    }

    @Test
    void header_givesTheCoresNotTheLoadAverage() {
        CommandLine cli = Cli.commandLine();
        cli.parseArgs("fleet", "--validate", "3");
        FleetCommand fleet = cli.getSubcommands().get("fleet").getCommand();
        String header = fleet.header();
        assertTrue(header.endsWith("; " + Runtime.getRuntime().availableProcessors() + " cores"), header);
        assertTrue(!header.contains("load"), "the machine's load is not a result: " + header);
        assertEquals(1, header.lines().count(), header);
    }
}
