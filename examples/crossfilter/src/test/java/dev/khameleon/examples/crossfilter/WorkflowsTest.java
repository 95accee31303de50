package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkflowsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void readAll_realSessions_countsEventsAndSwitches() throws Exception {
        List<Workflow> all = Workflows.readAll(FlightsData.workflows());
        assertEquals(55, all.size());
        // Counted independently from the files: 73,738 interactions, 20,662 on DISTANCE.
        assertEquals(73_738, all.stream().mapToInt(w -> w.events().size()).sum());
        assertEquals(20_662, all.stream().mapToInt(w -> w.eventsPerView().getOrDefault(FlightsViews.DISTANCE, 0)).sum());
        // 180 changes of the brushed view between consecutive events, plus each session's first event.
        assertEquals(180 + 55, all.stream().mapToInt(Workflow::viewSwitches).sum());
    }

    @Test
    void read_firstSession_startsWithAnEmptyBrushThatGrows() throws Exception {
        Workflow w = Workflows.read(FlightsData.workflows()
                .resolve("01a259b8-856e-48ae-92bd-fade80fa00c6_flights_0_workflow.json.gz"));
        assertEquals("01a259b8-856e-48ae-92bd-fade80fa00c6_flights_0", w.name());
        assertEquals(500, w.events().size());
        // "DISTANCE >= 1014.2857142857143 AND DISTANCE < 1014.2857142857143" at time 0: pixel 71, empty.
        BrushEvent first = w.events().get(0);
        assertEquals(new BrushEvent(0, FlightsViews.DISTANCE, 71, 71, 1), first);
        assertTrue(first.isEmpty());
        assertFalse(w.filtersAfter().get(0).isSet(FlightsViews.DISTANCE));
        // time 99: "... < 1028.5714285714287": one pixel wide.
        assertEquals(new BrushEvent(99, FlightsViews.DISTANCE, 71, 72, 1), w.events().get(3));
        assertEquals(72, w.filtersAfter().get(3).to(FlightsViews.DISTANCE));
        assertTrue(w.isViewSwitch(0));
        assertFalse(w.isViewSwitch(1));
    }

    @Test
    void parse_sortsBoundsInStringOrderNumerically() throws Exception {
        BrushEvent e = Workflows.parse(JSON.readTree("{\"name\":\"DISTANCE\",\"time\":5,"
                + "\"selection\":\"DISTANCE >= 1014.2857142857143 AND DISTANCE < 985.7142857142858\","
                + "\"metadata\":{\"brush_id\":2}}"), "t");
        assertEquals(new BrushEvent(5, FlightsViews.DISTANCE, 69, 71, 2), e);
    }

    @Test
    void parse_rejectsMalformedSelections() throws Exception {
        for (String bad : List.of(
                "{\"name\":\"DISTANCE\",\"time\":5,\"selection\":\"DISTANCE >= 1000 AND AIR_TIME < 1100\"}",
                "{\"name\":\"DISTANCE\",\"time\":5,\"selection\":\"DISTANCE >= 1001 AND DISTANCE < 1100\"}",
                "{\"name\":\"DISTANCE\",\"time\":5,\"selection\":\"DISTANCE >= 0 AND DISTANCE < 6000\"}",
                "{\"name\":\"NOPE\",\"time\":5,\"selection\":\"NOPE >= 0 AND NOPE < 1\"}",
                "{\"name\":\"DISTANCE\",\"selection\":\"DISTANCE >= 0 AND DISTANCE < 1000\"}")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Workflows.parse(JSON.readTree(bad), "file.json.gz, interaction 3"));
            assertTrue(e.getMessage().startsWith("file.json.gz, interaction 3: "), e.getMessage());
        }
    }

    @Test
    void viewWidths_everyViewIs350PixelsWide() throws Exception {
        Map<View, Integer> widths = Workflows.viewWidths(FlightsData.viewsGeometry());
        assertEquals(FlightsViews.values().length, widths.size());
        widths.values().forEach(w -> assertEquals(View.PIXELS, w));
    }
}
