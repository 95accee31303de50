package dev.khameleon.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.scheduler.SchedulerSettings;
import dev.khameleon.core.testkit.DocSnippets;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The "Application options" table of docs/server.md names every setting an application can
 * be given: each public setter of {@link Application.Builder} and of {@link SchedulerSettings.Builder}
 * (which {@link Application.Builder#schedulerSettings} takes), and nothing else.
 */
class ApplicationDocTest {
    private static final String HEADING = "## Application options";
    /** A method name inside the table's first column: an identifier followed by {@code (}. */
    private static final Pattern METHOD = Pattern.compile("([A-Za-z_]\\w*)\\(");

    /** The method names in the first column of the table under {@link #HEADING}. */
    static Set<String> documentedOptions(String markdown) {
        int start = markdown.indexOf(HEADING);
        assertTrue(start >= 0, "docs/server.md has no '" + HEADING + "' section");
        int end = markdown.indexOf("\n## ", start + HEADING.length());
        String section = markdown.substring(start, end < 0 ? markdown.length() : end);
        Set<String> names = new TreeSet<>();
        boolean inTable = false;
        for (String line : section.split("\n")) {
            if (!line.startsWith("|")) {
                if (inTable) {
                    break;
                }
                continue;
            }
            inTable = true;
            String first = line.substring(1, Math.max(1, line.indexOf('|', 1))).trim();
            Matcher m = METHOD.matcher(first);
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    /** The public instance setters of {@code builder}, {@code build()} aside. */
    private static Set<String> setters(Class<?> builder) {
        Set<String> names = new TreeSet<>();
        for (Method m : builder.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic()
                    && !m.getName().equals("build")) {
                names.add(m.getName());
            }
        }
        return names;
    }

    @Test
    void optionsTable_namesEveryApplicationAndSchedulerSetting() throws IOException {
        Set<String> expected = new TreeSet<>(setters(Application.Builder.class));
        expected.addAll(setters(SchedulerSettings.Builder.class));
        expected.add("builder");
        assertTrue(expected.containsAll(Set.of("schedulerSettings", "planningHorizonMillis", "forecastFadeMillis",
                "selection", "chunkSize")), "reflection sees the builders' setters: " + expected);
        assertEquals(expected, documentedOptions(DocSnippets.read("docs/server.md")));
    }

    @Test
    void documentedOptions_readsOnlyTheFirstColumnOfThatTable() {
        String md = "# t\n\n## Application options\n\n| option | default |\n|---|---|\n"
                + "| `a(int)` or `b(long...)` | `notMe(1)` |\n| `SchedulerSettings.Builder.c(double)` | x |\n\n"
                + "| `later(int)` | x |\n\n## Server options\n\n| `d(int)` | x |\n";
        assertEquals(Set.of("a", "b", "c"), documentedOptions(md));
    }
}
