package dev.khameleon.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.khameleon.core.testkit.DocSnippets;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * The properties table of docs/spring-boot.md lists exactly the properties in the jar's
 * configuration metadata (written by Spring Boot's configuration processor), with their defaults.
 */
class PropertiesDocTest {
    private static final Pattern ROW = Pattern.compile("^\\| `(khameleon\\.[a-z-]+)` \\| `?([^`|]+?)`? \\|", Pattern.MULTILINE);

    @Test
    void docsTable_matchesTheConfigurationMetadata() throws IOException {
        Map<String, String> documented = new TreeMap<>();
        Matcher m = ROW.matcher(DocSnippets.read("docs/spring-boot.md"));
        while (m.find()) {
            documented.put(m.group(1), m.group(2));
        }
        Map<String, String> metadata = new TreeMap<>();
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertNotNull(in, "the configuration processor wrote no metadata");
            for (JsonNode p : new ObjectMapper().readTree(in).get("properties")) {
                JsonNode value = p.get("defaultValue");
                String shown = value == null ? "none" : value.isArray() && value.isEmpty() ? "none" : value.asText();
                metadata.put(p.get("name").asText(), shown);
            }
        }
        assertEquals(metadata, documented);
    }
}
