package dev.khameleon.core.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps documentation quoting compiled code: extracts the regions between
 * {@code // tag::name[]} and {@code // end::name[]} markers of a source file, unindented as a
 * Markdown page quotes them.
 */
public final class DocSnippets {
    private static final Pattern REGION = Pattern.compile(
            "[ \\t]*// tag::([a-z-]+)\\[]\\R(.*?)[ \\t]*// end::\\1\\[]", Pattern.DOTALL);

    private DocSnippets() {
    }

    /** The tagged regions of {@code source}, by name, in order of appearance, unindented. */
    public static Map<String, String> regions(String source) {
        Map<String, String> regions = new LinkedHashMap<>();
        Matcher m = REGION.matcher(source);
        while (m.find()) {
            regions.put(m.group(1), unindent(m.group(2)));
        }
        return regions;
    }

    /** Reads {@code relativePath} below the project root. */
    public static String read(String relativePath) throws IOException {
        return Files.readString(projectRoot().resolve(relativePath));
    }

    /**
     * The project root: the nearest directory at or above the working directory that holds
     * {@code README.md} and {@code docs/}.
     *
     * @throws IllegalStateException if there is none
     */
    public static Path projectRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !(Files.exists(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs")))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("no README.md and docs/ above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    /** Removes the common leading whitespace of the non-blank lines. */
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
}
