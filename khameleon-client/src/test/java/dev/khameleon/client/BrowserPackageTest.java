package dev.khameleon.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The npm package {@code khameleon-js/} and the jar agree: the jar serves the package's module
 * byte for byte, the package carries the Maven project's version, its manifest points at files
 * that exist, and its TypeScript declarations name every export of the module.
 */
class BrowserPackageTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path PACKAGE = Path.of(System.getProperty("khameleon.js.dir", "../khameleon-js"));
    private static final Pattern JS_EXPORT = Pattern.compile("^export (?:class|function|const) (\\w+)", Pattern.MULTILINE);
    private static final Pattern DTS_EXPORT =
            Pattern.compile("^export (?:declare (?:class|function|const)|interface|type) (\\w+)", Pattern.MULTILINE);

    private static JsonNode manifest() throws IOException {
        return JSON.readTree(PACKAGE.resolve("package.json").toFile());
    }

    @Test
    void jarResource_isThePackagesModuleByteForByte() throws IOException {
        byte[] served;
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("META-INF/resources/khameleon/khameleon.js")) {
            assertNotNull(in, "the client jar serves META-INF/resources/khameleon/khameleon.js");
            served = in.readAllBytes();
        }
        assertArrayEquals(Files.readAllBytes(PACKAGE.resolve("khameleon.js")), served);
    }

    @Test
    void packageVersion_isTheMavenProjectVersion() throws IOException {
        String version = System.getProperty("khameleon.version");
        assertNotNull(version, "surefire sets khameleon.version");
        assertEquals(version, manifest().path("version").asText(),
                "khameleon-js/package.json's version must follow the POMs (docs/releasing.md)");
    }

    @Test
    void manifest_isAnEsModulePackageWhoseEntryPointsExistAndArePublished() throws IOException {
        JsonNode m = manifest();
        assertEquals("@khameleon/client", m.path("name").asText());
        assertEquals("module", m.path("type").asText());
        assertEquals("Apache-2.0", m.path("license").asText());
        JsonNode root = m.path("exports").path(".");
        assertEquals("./khameleon.d.ts", root.path("types").asText());
        assertEquals("./khameleon.js", root.path("default").asText());
        assertEquals("./khameleon.d.ts", m.path("types").asText());
        List<String> files = new ArrayList<>();
        m.path("files").forEach(f -> files.add(f.asText()));
        for (String entry : List.of(root.path("types").asText(), root.path("default").asText())) {
            String file = entry.substring(2);
            assertTrue(Files.isRegularFile(PACKAGE.resolve(file)), file + " exists");
            assertTrue(files.contains(file), file + " is in \"files\", so npm publishes it: " + files);
        }
    }

    @Test
    void license_isTheRepositorysLicense() throws IOException {
        Path root = PACKAGE.resolve("..").normalize();
        assertArrayEquals(Files.readAllBytes(root.resolve("LICENSE")), Files.readAllBytes(PACKAGE.resolve("LICENSE")));
    }

    @Test
    void declarations_nameEveryExportOfTheModule() throws IOException {
        TreeSet<String> exported = names(JS_EXPORT, PACKAGE.resolve("khameleon.js"));
        TreeSet<String> declared = names(DTS_EXPORT, PACKAGE.resolve("khameleon.d.ts"));
        assertTrue(exported.size() >= 13, "the module's exports were found: " + exported);
        TreeSet<String> missing = new TreeSet<>(exported);
        missing.removeAll(declared);
        assertTrue(missing.isEmpty(), "exports of khameleon.js without a declaration in khameleon.d.ts: " + missing);
        for (String type : List.of("KhameleonClientOptions", "Welcome", "Response", "Registration", "Metrics",
                "CloseInfo", "ClientPredictor", "BlockFrame")) {
            assertTrue(declared.contains(type), "khameleon.d.ts declares " + type);
        }
    }

    /**
     * The package's own tests ({@code npm test}: {@code node --test}, fake WebSocket and mocked
     * timers, no server) pass. They need Node.js 20 or later on the PATH; without it the test is
     * skipped with a message.
     */
    @Test
    void packageTests_passUnderNode() throws IOException, InterruptedException {
        int major = nodeMajorVersion();
        Assumptions.assumeTrue(major >= 20, "Node.js 20 or later not found on the PATH (node --version: "
                + (major < 0 ? "absent" : "v" + major) + "); khameleon-js/test not run");
        List<String> command = new ArrayList<>(List.of("node", "--test"));
        try (var tests = Files.list(PACKAGE.resolve("test"))) {
            tests.map(Path::toString).filter(f -> f.endsWith(".test.js")).sorted().forEach(command::add);
        }
        assertTrue(command.size() > 2, "khameleon-js/test holds *.test.js files");
        Process node = new ProcessBuilder(command).directory(PACKAGE.toFile()).redirectErrorStream(true).start();
        String output = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, node.waitFor(), output);
        assertTrue(output.contains("# fail 0"), output);
    }

    /** The major version of {@code node} on the PATH, or -1 if there is none. */
    private static int nodeMajorVersion() throws InterruptedException {
        try {
            Process p = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            Matcher m = Pattern.compile("^v(\\d+)\\.").matcher(v);
            return p.waitFor() == 0 && m.find() ? Integer.parseInt(m.group(1)) : -1;
        } catch (IOException e) {
            return -1;
        }
    }

    private static TreeSet<String> names(Pattern pattern, Path file) throws IOException {
        TreeSet<String> names = new TreeSet<>();
        Matcher m = pattern.matcher(Files.readString(file, StandardCharsets.UTF_8));
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
