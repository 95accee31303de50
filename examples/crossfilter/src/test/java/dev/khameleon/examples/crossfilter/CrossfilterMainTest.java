package dev.khameleon.examples.crossfilter;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CrossfilterMainTest {

    @Test
    void evaluate_rejectsRowsBelowOne() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new CrossfilterMain()).setErr(new PrintWriter(err));
        assertEquals(2, cl.execute("evaluate", "--rows", "0"));
        assertTrue(err.toString().contains("--rows must be >= 1, was 0"), err.toString());
    }

    @Test
    void evaluation_onTheRealSessions_reportsEverySessionEventSplitByKind() throws Exception {
        FlightsTable table = FlightsTable.read(SharedData.flightsCsv());
        List<Workflow> workflows = Workflows.readAll(SharedData.workflows());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TileBackend db = TileBackend.duckDb(table, table.sample(table.size(), 1), 1);
                PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            new Evaluation(db, workflows, new Evaluation.Settings(2, 2, 5, 4, TileEncoder.DEFAULT_BLOCK_SIZE, 1, 1, 100), out)
                    .run();
        }
        String report = bytes.toString(StandardCharsets.UTF_8);
        // 73,738 events = 73,503 brush updates within a view + 235 view activations.
        assertTrue(report.contains("| On-demand (stale queries dropped) | 73,503 |"), report);
        assertTrue(report.contains("| Falcon on hover (tile per active view) | 73,503 |"), report);
        assertTrue(report.contains("| Falcon + predicted next view (Markov, leave-one-out, top 1, after a 100 ms pause) | 73,503 |"),
                report);
        assertTrue(report.contains("| histogram (on-demand, one passive view) | 10 |"), report);
        assertTrue(report.contains("| tile slice (one passive view) | 10 |"), report);
        assertTrue(report.lines().anyMatch(l -> l.startsWith("| utility | 0.000 |") && l.endsWith(" 1.000 |")), report);
    }
}
