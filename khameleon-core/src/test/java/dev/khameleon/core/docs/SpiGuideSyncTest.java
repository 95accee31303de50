package dev.khameleon.core.docs;

import dev.khameleon.core.testkit.DocSnippets;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keeps {@code docs/spi-guide.md} quoting the compiled examples exactly. */
class SpiGuideSyncTest {

    @Test
    void guide_quotesEveryExampleVerbatim() throws IOException {
        Map<String, String> regions = DocSnippets.regions(DocSnippets.read(
                "khameleon-core/src/test/java/dev/khameleon/core/docs/SpiGuideExamples.java"));
        String guide = DocSnippets.read("docs/spi-guide.md");
        assertEquals(8, regions.size(), "examples found: " + regions.keySet());
        for (Map.Entry<String, String> region : regions.entrySet()) {
            assertTrue(guide.contains(region.getValue()),
                    "docs/spi-guide.md does not quote example '" + region.getKey() + "' as compiled:\n" + region.getValue());
        }
    }
}
