package dev.khameleon.core.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The tuning settings: defaults, validation with the settings' own messages, value semantics, and reaching a config. */
class SchedulerSettingsTest {

    private static void assertMessage(String expected, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertEquals(expected, e.getMessage());
    }

    @Test
    void defaults_areTheDocumentedOnes() {
        SchedulerSettings d = SchedulerSettings.defaults();
        assertEquals(100, d.chunkSize());
        assertEquals(1.0, d.discount());
        assertEquals(1e-9, d.minBlockGain());
        assertEquals(0.2, d.blockGainShare());
        assertEquals(500.0, d.planningHorizonMillis());
        assertEquals(1000.0, d.forecastFadeMillis());
        assertSame(Selection.SAMPLE, d.selection());
        assertEquals(d, SchedulerSettings.builder().build());
    }

    @Test
    void builder_rejectsEachBadSettingWithItsMessage() {
        SchedulerSettings.Builder b = SchedulerSettings.builder();
        assertMessage("chunkSize must be >= 1, was 0", () -> b.chunkSize(0));
        assertMessage("discount must be in (0, 1], was 0.0", () -> b.discount(0.0));
        assertMessage("discount must be in (0, 1], was 1.5", () -> b.discount(1.5));
        assertMessage("discount must be in (0, 1], was NaN", () -> b.discount(Double.NaN));
        assertMessage("minBlockGain must be in [1.0E-9, 1], was 1.0E-10", () -> b.minBlockGain(1e-10));
        assertMessage("minBlockGain must be in [1.0E-9, 1], was 2.0", () -> b.minBlockGain(2.0));
        assertMessage("blockGainShare must be in [0, 1], was -0.1", () -> b.blockGainShare(-0.1));
        assertMessage("blockGainShare must be in [0, 1], was NaN", () -> b.blockGainShare(Double.NaN));
        assertMessage("planningHorizonMillis must be > 0 (or infinite), was 0.0", () -> b.planningHorizonMillis(0));
        assertMessage("forecastFadeMillis must be >= 0 (or infinite), was -1.0", () -> b.forecastFadeMillis(-1));
        NullPointerException e = assertThrows(NullPointerException.class, () -> b.selection(null));
        assertEquals("selection must not be null", e.getMessage());
        assertEquals(SchedulerSettings.defaults(), b.build(), "a rejected setting leaves the builder as it was");
    }

    @Test
    void builder_acceptsTheBoundsAndInfinity() {
        SchedulerSettings s = SchedulerSettings.builder().chunkSize(1).discount(1).minBlockGain(1).blockGainShare(0)
                .planningHorizonMillis(Double.POSITIVE_INFINITY).forecastFadeMillis(0).build();
        assertEquals(1, s.chunkSize());
        assertEquals(1.0, s.minBlockGain());
        assertEquals(0.0, s.blockGainShare());
        assertEquals(Double.POSITIVE_INFINITY, s.planningHorizonMillis());
        assertEquals(0.0, s.forecastFadeMillis());
        assertEquals(Double.POSITIVE_INFINITY,
                SchedulerSettings.builder().forecastFadeMillis(Double.POSITIVE_INFINITY).build().forecastFadeMillis());
    }

    /** Each entry changes exactly one setting from its default. */
    private static final List<UnaryOperator<SchedulerSettings.Builder>> ONE_CHANGE = List.of(
            b -> b.chunkSize(7), b -> b.discount(0.9), b -> b.minBlockGain(0.03), b -> b.blockGainShare(0.5),
            b -> b.planningHorizonMillis(250), b -> b.forecastFadeMillis(0), b -> b.selection(Selection.MAX_GAIN));

    @Test
    void equals_seesEverySetting_andToBuilderKeepsThemAll() {
        SchedulerSettings d = SchedulerSettings.defaults();
        for (UnaryOperator<SchedulerSettings.Builder> change : ONE_CHANGE) {
            SchedulerSettings s = change.apply(SchedulerSettings.builder()).build();
            assertNotEquals(d, s, s.toString());
            assertEquals(s, change.apply(SchedulerSettings.builder()).build());
            assertEquals(s.hashCode(), change.apply(SchedulerSettings.builder()).build().hashCode());
            assertEquals(s, s.toBuilder().build(), "toBuilder keeps " + s);
            assertNotEquals(d.toString(), s.toString());
        }
        SchedulerSettings all = SchedulerSettings.builder().chunkSize(7).discount(0.9).minBlockGain(0.03)
                .blockGainShare(0.5).planningHorizonMillis(250).forecastFadeMillis(0).selection(Selection.MAX_GAIN).build();
        assertEquals(all, all.toBuilder().build());
        assertEquals(d, all.toBuilder().chunkSize(100).discount(1).minBlockGain(1e-9).blockGainShare(0.2)
                .planningHorizonMillis(500).forecastFadeMillis(1000).selection(Selection.SAMPLE).build());
    }

    @Test
    void toString_namesEachSetting() {
        String s = SchedulerSettings.defaults().toString();
        for (String name : List.of("chunkSize", "discount", "minBlockGain", "blockGainShare", "planningHorizonMillis",
                "forecastFadeMillis", "selection")) {
            assertTrue(s.contains(name + "="), s + " should name " + name);
        }
    }

    @Test
    void config_takesTheSettingsWhole_andItsSettersChangeOneAtATime() {
        SchedulerSettings s = SchedulerSettings.builder().chunkSize(7).discount(0.9).minBlockGain(0.03)
                .blockGainShare(0.5).planningHorizonMillis(250).forecastFadeMillis(0).selection(Selection.MAX_GAIN).build();
        SchedulerConfig c = SchedulerConfig.builder().cacheBlocks(5).requestCount(4).chunkSize(3).settings(s).build();
        assertEquals(s, c.settings(), "settings(..) replaces a setting made before it");
        assertEquals(7, c.chunkSize());
        assertEquals(0.9, c.discount());
        assertEquals(250.0, c.planningHorizonMillis());
        assertEquals(0.0, c.forecastFadeMillis());
        assertSame(Selection.MAX_GAIN, c.selection());

        SchedulerConfig later = SchedulerConfig.builder().cacheBlocks(5).requestCount(4).settings(s)
                .planningHorizonMillis(Double.POSITIVE_INFINITY).build();
        assertEquals(s.toBuilder().planningHorizonMillis(Double.POSITIVE_INFINITY).build(), later.settings());
        assertEquals(SchedulerSettings.defaults(), SchedulerConfig.builder().cacheBlocks(5).requestCount(4).build().settings());
        assertThrows(NullPointerException.class, () -> SchedulerConfig.builder().settings(null));
    }

    @Test
    void config_weighsBlocksWithTheSettingsFloors() {
        // A flat utility: every block after the first adds nothing, so its weight is the floor.
        SchedulerSettings s = SchedulerSettings.builder().minBlockGain(0.03).blockGainShare(0).build();
        SchedulerConfig c = SchedulerConfig.builder().cacheBlocks(5).requestCount(1).blocksPerRequest(4)
                .utility(f -> f > 0 ? 1.0 : 0.0).settings(s).build();
        assertEquals(0.03, c.gainsFor(4)[3], 1e-12);
        SchedulerConfig shared = SchedulerConfig.builder().cacheBlocks(5).requestCount(1).blocksPerRequest(4)
                .utility(f -> f > 0 ? 1.0 : 0.0).settings(s.toBuilder().blockGainShare(0.4).build()).build();
        assertEquals(0.1, shared.gainsFor(4)[3], 1e-12, "share / N = 0.4 / 4");
    }
}
