package dev.khameleon.loadtest.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.testkit.BlockSourceContract;
import dev.khameleon.jakarta.KhameleonEndpoints;
import dev.khameleon.micrometer.ClientMeterBinder;
import dev.khameleon.server.KhameleonServer;
import dev.khameleon.spring.KhameleonAutoConfiguration;
import dev.khameleon.store.FileBlockStore;
import dev.khameleon.tiers.TieredBlockSource;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * What users of the published artifacts rely on: each jar names its JPMS module in its manifest,
 * and the BOM manages every published artifact at the build's version.
 *
 * <p>The manifest checks need the packaged jars, which the reactor puts on this module's test
 * class path from the {@code package} phase on ({@code mvn verify}); under {@code mvn test} the
 * class path holds class directories and those checks are skipped with a message.
 */
class ReleaseArtifactsTest {

    /** One class of each published jar, with the module name its manifest must carry. */
    private static final Map<Class<?>, String> MODULE_NAMES = new LinkedHashMap<>();

    static {
        MODULE_NAMES.put(Distribution.class, "dev.khameleon.core");
        MODULE_NAMES.put(BlockSourceContract.class, "dev.khameleon.core.testkit");
        MODULE_NAMES.put(FileBlockStore.class, "dev.khameleon.store");
        MODULE_NAMES.put(KhameleonServer.class, "dev.khameleon.server");
        MODULE_NAMES.put(KhameleonClient.class, "dev.khameleon.client");
        MODULE_NAMES.put(TieredBlockSource.class, "dev.khameleon.tiers");
        MODULE_NAMES.put(ClientMeterBinder.class, "dev.khameleon.micrometer");
        MODULE_NAMES.put(KhameleonEndpoints.class, "dev.khameleon.jakarta");
        MODULE_NAMES.put(KhameleonAutoConfiguration.class, "dev.khameleon.spring");
    }

    /** The published artifacts as artifactId, or artifactId:type when not a plain jar. */
    private static final List<String> PUBLISHED = List.of(
            "khameleon-core", "khameleon-core:test-jar", "khameleon-store", "khameleon-server",
            "khameleon-client", "khameleon-tiers", "khameleon-micrometer", "khameleon-jakarta", "khameleon-spring-boot-starter");

    @Test
    void everyPublishedJar_namesItsModuleInTheManifest() throws IOException, URISyntaxException {
        for (Map.Entry<Class<?>, String> e : MODULE_NAMES.entrySet()) {
            Path location = Path.of(e.getKey().getProtectionDomain().getCodeSource().getLocation().toURI());
            assumeTrue(Files.isRegularFile(location),
                    "manifest checks need packaged jars (run mvn verify); found the directory " + location);
            try (JarFile jar = new JarFile(location.toFile())) {
                assertEquals(e.getValue(), jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name"),
                        "Automatic-Module-Name of " + location.getFileName());
            }
        }
    }

    @Test
    void bom_managesEveryPublishedArtifactAtTheParentVersion() throws Exception {
        Document parent = parse(Path.of("../pom.xml"));
        Document bom = parse(Path.of("../khameleon-bom/pom.xml"));
        String version = childText(parent.getDocumentElement(), "version");
        assertEquals(version, childText(bom.getDocumentElement(), "version"), "BOM version");

        List<String> managed = new ArrayList<>();
        NodeList deps = bom.getElementsByTagName("dependency");
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            assertEquals("dev.khameleon", childText(d, "groupId"));
            assertEquals("${project.version}", childText(d, "version"), "version of " + childText(d, "artifactId"));
            String type = childText(d, "type");
            managed.add(childText(d, "artifactId") + (type == null ? "" : ":" + type));
        }
        assertEquals(PUBLISHED, managed);
        for (String module : List.of("khameleon-bom", "khameleon-core", "khameleon-store", "khameleon-server",
                "khameleon-client", "khameleon-tiers", "khameleon-micrometer", "khameleon-jakarta", "khameleon-spring-boot-starter")) {
            assertTrue(parent.getDocumentElement().getElementsByTagName("modules").item(0).getTextContent()
                    .contains(module), "parent builds " + module);
        }
    }

    private static Document parse(Path pom) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        return f.newDocumentBuilder().parse(pom.toFile());
    }

    /** The text of {@code parent}'s direct child element {@code name}, or null when it has none. */
    private static String childText(Element parent, String name) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e.getTextContent().trim();
            }
        }
        return null;
    }
}
