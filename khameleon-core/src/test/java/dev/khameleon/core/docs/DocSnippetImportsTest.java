package dev.khameleon.core.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.testkit.DocSnippets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet in README.md and docs/*.md imports the Khameleon and JDK types it names, so
 * a reader can paste it without hunting for packages. Types declared in the snippet itself and
 * {@code java.lang} need no import; third-party types are not checked.
 */
class DocSnippetImportsTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern COMMENTS_AND_STRINGS =
            Pattern.compile("/\\*.*?\\*/|//[^\\n]*|\"(?:\\\\.|[^\"\\\\])*\"", Pattern.DOTALL);
    private static final Pattern TYPE_NAME = Pattern.compile("(?<![.\\w])([A-Z][A-Za-z0-9]*)\\b");
    private static final Pattern DECLARED =
            Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z][A-Za-z0-9]*)");
    private static final Pattern IMPORT = Pattern.compile("^import\\s+(?:static\\s+)?([\\w.]+?)(\\.\\*)?;",
            Pattern.MULTILINE);
    private static final List<String> JDK_PACKAGES = List.of("java.util", "java.util.concurrent",
            "java.util.concurrent.atomic", "java.util.function", "java.util.random", "java.util.stream", "java.io",
            "java.net", "java.net.http", "java.nio", "java.nio.file", "java.time");

    @Test
    void everySnippet_importsTheTypesItNames() throws IOException {
        Path root = DocSnippets.projectRoot();
        Map<String, Set<String>> khameleonTypes = khameleonTypes(root);
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> missing = new ArrayList<>();
        int snippets = 0;
        for (Path page : pages) {
            String text = Files.readString(page);
            Matcher block = JAVA_BLOCK.matcher(text);
            while (block.find()) {
                snippets++;
                int line = text.substring(0, block.start()).split("\n", -1).length;
                for (String type : unimported(block.group(1), khameleonTypes)) {
                    missing.add(root.relativize(page) + ":" + line + " " + type);
                }
            }
        }
        assertTrue(snippets >= 10, "found only " + snippets + " snippets");
        assertEquals(List.of(), missing, "snippets naming a type they do not import (page:line type)");
    }

    @Test
    void unimported_findsKhameleonAndJdkTypesOnly() {
        Map<String, Set<String>> types = Map.of("Block", Set.of("dev.khameleon.core.Block"),
                "Layout", Set.of("dev.khameleon.core.spi.Layout"));
        String snippet = """
                import dev.khameleon.core.spi.*;
                // Block in a comment is fine
                record Row(int id) {}
                List<Block> blocks = Layout.grid(1, 1, 0, 0, 1, 1) + "Path" + Tags.of() + String.valueOf(1);
                """;
        assertEquals(Set.of("Block", "List"), unimported(snippet, types));
    }

    /** The Khameleon and JDK types {@code snippet} names without importing or declaring them. */
    static Set<String> unimported(String snippet, Map<String, Set<String>> khameleonTypes) {
        Set<String> imported = new HashSet<>();
        Set<String> wildcards = new HashSet<>();
        Matcher im = IMPORT.matcher(snippet);
        while (im.find()) {
            (im.group(2) != null ? wildcards : imported).add(im.group(1));
        }
        String code = COMMENTS_AND_STRINGS.matcher(IMPORT.matcher(snippet).replaceAll("")).replaceAll(" ");
        Set<String> declared = new HashSet<>();
        Matcher d = DECLARED.matcher(code);
        while (d.find()) {
            declared.add(d.group(1));
        }
        Set<String> missing = new TreeSet<>();
        Matcher t = TYPE_NAME.matcher(code);
        while (t.find()) {
            String name = t.group(1);
            if (declared.contains(name) || isJavaLang(name)) {
                continue;
            }
            Set<String> candidates = new HashSet<>(khameleonTypes.getOrDefault(name, Set.of()));
            for (String pkg : JDK_PACKAGES) {
                if (exists(pkg + "." + name)) {
                    candidates.add(pkg + "." + name);
                }
            }
            boolean ok = candidates.stream().anyMatch(fqn -> imported.contains(fqn)
                    || wildcards.contains(fqn.substring(0, fqn.lastIndexOf('.'))));
            if (!candidates.isEmpty() && !ok) {
                missing.add(name);
            }
        }
        return missing;
    }

    /** Simple name to fully qualified names of every Khameleon type in the project's main sources and test kit. */
    private static Map<String, Set<String>> khameleonTypes(Path root) throws IOException {
        Map<String, Set<String>> types = new HashMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(p -> p.toString().endsWith(".java") && !p.getFileName().toString().contains("-"))
                    .filter(p -> p.toString().contains("/src/main/java/") || p.toString().contains("/testkit/"))
                    .forEach(p -> {
                        String rel = p.toString().replaceFirst(".*/src/(main|test)/java/", "");
                        String fqn = rel.substring(0, rel.length() - ".java".length()).replace('/', '.');
                        if (!fqn.startsWith("dev.khameleon.")) {
                            return;   // the consumer projects' own types (khameleon-it) are theirs to import
                        }
                        types.computeIfAbsent(fqn.substring(fqn.lastIndexOf('.') + 1), k -> new HashSet<>()).add(fqn);
                    });
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        return types;
    }

    private static boolean isJavaLang(String name) {
        return exists("java.lang." + name);
    }

    private static boolean exists(String className) {
        try {
            Class.forName(className, false, DocSnippetImportsTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
