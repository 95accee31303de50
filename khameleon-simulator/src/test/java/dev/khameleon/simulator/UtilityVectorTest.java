package dev.khameleon.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.spi.UtilityFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class UtilityVectorTest {

    @Test
    void paperPrototype_givesTheVectorsValuesAtItsBlockCounts_andInterpolatesBetween() {
        UtilityFunction u = Profile.PAPER_PROTOTYPE.utility();
        Workload w = new Workload(Workload.mosaic(1, 1, 10, 10), Profile.PAPER_PROTOTYPE.imageBytes(),
                Profile.PAPER_PROTOTYPE.blockBytes(), u);
        assertEquals(50, w.blocksPerResponse(), "1,024,862 B in blocks of 20,498 B");
        assertEquals(0.537, w.utilityOf(1), 1e-12);
        assertEquals(0.599, w.utilityOf(2), 1e-12);
        assertEquals(0.726, w.utilityOf(10), 1e-12);
        assertEquals(0.849, w.utilityOf(25), 1e-12);
        assertEquals(1.0, w.utilityOf(50), 1e-12);
        assertEquals(0.599 + (0.726 - 0.599) * 4 / 8, w.utilityOf(6), 1e-12, "linear between 2 and 10 blocks");
    }

    @Test
    void parse_readsWhatToStringWrites() {
        UtilityVector v = UtilityVector.parse(" 1:0.537, 2:0.599,10:0.726,25:0.849,50:1.0 ");
        assertEquals(UtilityVector.PAPER_PROTOTYPE, v);
        assertEquals(v, UtilityVector.parse(v.toString()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1:0.6,2:0.5,50:1.0", "2:0.5,2:0.6,50:1.0", "1:0.5,10:0.9", "1:1.5,2:1.0", "a:0.5,2:1.0",
        "1=0.5,2:1.0", "0:0.1,2:1.0"})
    void parse_refusesWhatIsNotAMonotoneVectorEndingAtOne_namingTheOption(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UtilityVector.parse(text));
        assertTrue(e.getMessage().startsWith("--utility-vector"), e.getMessage());
    }
}
