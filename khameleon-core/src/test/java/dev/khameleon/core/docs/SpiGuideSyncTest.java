package dev.khameleon.core.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Keeps {@code docs/spi-guide.md} quoting the compiled examples exactly. */
class SpiGuideSyncTest {
    private static final Pattern REGION = Pattern.compile(
            "[ \\t]*// tag::([a-z-]+)\\[]\\R(.*?)[ \\t]*// end::\\1\\[]", Pattern.DOTALL);

    @Test
    void guide_quotesEveryExampleVerbatim() throws IOException {
        Path root = projectRoot();
        String source = Files.readString(root.resolve(
                "khameleon-core/src/test/java/dev/khameleon/core/docs/SpiGuideExamples.java"));
        String guide = Files.readString(root.resolve("docs/spi-guide.md"));
        Map<String, String> regions = new LinkedHashMap<>();
        Matcher m = REGION.matcher(source);
        while (m.find()) {
            regions.put(m.group(1), unindent(m.group(2)));
        }
        assertEquals(6, regions.size(), "examples found: " + regions.keySet());
        for (Map.Entry<String, String> region : regions.entrySet()) {
            assertTrue(guide.contains(region.getValue()),
                    "docs/spi-guide.md does not quote example '" + region.getKey() + "' as compiled:\n" + region.getValue());
        }
    }

    /** Removes the common leading whitespace of the non-blank lines, as the guide quotes them. */
    static String unindent(String block) {
        String[] lines = block.split("\n", -1);
        int indent = Integer.MAX_VALUE;
        for (String line : lines) {
            if (!line.isBlank()) {
                indent = Math.min(indent, line.length() - line.stripLeading().length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < lines.length; i++) {
            sb.append(lines[i].isBlank() ? "" : lines[i].substring(indent));
            if (i < lines.length - 1) {
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    static Path projectRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.exists(p.resolve("docs/spi-guide.md"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("docs/spi-guide.md not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }
}
