package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link GridSize}: {@code ROWSxCOLS} on the command line. */
class GridSizeTest {

    @Test
    void parse_readsRowsThenColumns() {
        assertEquals(new GridSize(30, 40), GridSize.parse("30x40", "--grid"));
        assertEquals(new GridSize(1, 7), GridSize.parse(" 1X7 ", "--grid"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"100", "x", "10x", "x10", "10x10x10", "ax3", "1.5x2", ""})
    void parse_rejectsWhatIsNotRowsByColumns_namingTheOption(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GridSize.parse(value, "--mosaic"));
        assertTrue(e.getMessage().startsWith("--mosaic '" + value + "' is not ROWSxCOLS"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0x5", "5x0", "-1x5", "100000x100000"})
    void parse_rejectsAnEmptyOrHugeGrid(String value) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> GridSize.parse(value, "--mosaic"));
        assertTrue(e.getMessage().contains("--mosaic " + value + ": a grid needs 1 to"), e.getMessage());
    }
}
