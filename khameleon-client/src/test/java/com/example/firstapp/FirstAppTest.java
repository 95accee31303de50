package com.example.firstapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.client.Response;
import dev.khameleon.core.testkit.DocSnippets;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * docs/first-app.md quotes {@link FirstApp} whole; this runs it over loopback (from outside the
 * library's packages, as a user's code) and checks the page still quotes the file exactly.
 */
class FirstAppTest {

    @Test
    void firstApp_answersTheHoveredChartInFull() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Response answer = FirstApp.run(0, new PrintStream(printed, true, StandardCharsets.UTF_8));
        int id = FirstApp.CHARTS.requestAt(450, 420);
        assertEquals(id, answer.requestId());
        assertEquals(1.0, answer.utility(), 1e-12);
        assertEquals(new FirstApp.CoarseFirstEncoder().encode(id, FirstApp.query(id)), answer.blocks(),
                "the client holds exactly the blocks the server encoded");
        String out = printed.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("chart " + id + ": 16 of 16 blocks, utility 1.00"), out);
        assertTrue(out.contains("ClientMetrics[registrations=1,"), out);
    }

    @Test
    void encoder_putsTheCoarsestPointsFirstAndKeepsEveryPoint() {
        double[] series = FirstApp.query(3);
        var blocks = new FirstApp.CoarseFirstEncoder().encode(3, series);
        assertEquals(16, blocks.size(), "4096 doubles in 2048-byte blocks");
        var first = blocks.get(0).content();
        for (int k = 0; k < 64; k++) {                 // block 0 starts with every 64th point
            assertEquals(series[64 * k], first.getDouble(), 0.0);
        }
    }

    @Test
    void guide_quotesFirstAppVerbatim() throws IOException {
        String source = DocSnippets.read("khameleon-client/src/test/java/com/example/firstapp/FirstApp.java");
        String guide = DocSnippets.read("docs/first-app.md");
        assertTrue(guide.contains("```java\n" + source + "```\n"),
                "docs/first-app.md must quote FirstApp.java whole, exactly as compiled");
    }
}
