package dev.khameleon.core.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.khameleon.core.testkit.apifixture.Blob;
import dev.khameleon.core.testkit.apifixture.Color;
import dev.khameleon.core.testkit.apifixture.FinalWidget;
import dev.khameleon.core.testkit.apifixture.Marker;
import dev.khameleon.core.testkit.apifixture.Shape;
import dev.khameleon.core.testkit.apifixture.Widget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ApiListing over the fixture classes in {@code apifixture}, copied to a classes directory of their own. */
class ApiListingGeneratorTest {
    private static final String W = "dev.khameleon.core.testkit.apifixture.Widget";

    @TempDir
    static Path classes;

    private static String listing;

    @BeforeAll
    static void copyFixturesAndRender() throws Exception {
        Path testClasses = Path.of(Widget.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path fixtures = testClasses.resolve("dev/khameleon/core/testkit/apifixture");
        try (Stream<Path> files = Files.walk(fixtures)) {
            for (Path file : files.filter(Files::isRegularFile).collect(Collectors.toList())) {
                Path copy = classes.resolve(testClasses.relativize(file).toString());
                Files.createDirectories(copy.getParent());
                Files.copy(file, copy);
            }
        }
        listing = ApiListing.render(classes);
    }

    private static List<String> lines() {
        return Arrays.asList(listing.split("\n"));
    }

    @Test
    void publicMembersAppearWithTheirGenericSignatures() {
        List<String> lines = lines();
        assertTrue(lines.contains("public class " + W + "<T extends java.lang.Comparable<? super T>>"
                + " implements java.lang.Comparable<" + W + "<T>>"), listing);
        assertTrue(lines.contains("  public <R extends java.lang.Number & java.lang.Comparable<R>>"
                + " java.util.List<R> sorted(java.util.Collection<? extends R>, java.lang.String...)"
                + " throws java.io.IOException"), listing);
        assertTrue(lines.contains("  public static final int LIMIT"), listing);
        assertTrue(lines.contains("  public int compareTo(" + W + "<T>)"), listing);
        assertTrue(lines.contains("public static class " + W + "$Part"), listing);
        assertTrue(lines.contains("  public void attach()"), listing);
    }

    @Test
    void packagePrivatePrivateSyntheticAndInternalAreLeftOut() {
        for (String absent : List.of("packageCount", "packageMethod", "secret", "privateMethod",
                "Widget(java.lang.String)", "Hidden", "hiddenMethod", "PackageNested", "packageNestedMethod",
                "PackageWidget", "packageWidgetMethod", "lambda$", "compareTo(java.lang.Object)", "internal", "Inside", "Color$1")) {
            assertFalse(listing.contains(absent), absent + " is not API:\n" + listing);
        }
    }

    @Test
    void protectedMembersOfAnExtensibleClassAreApiButNotOfAFinalOne() {
        List<String> lines = lines();
        assertTrue(lines.contains("  protected int count"), listing);
        assertTrue(lines.contains("  protected Widget(int)"), listing);
        assertTrue(lines.contains("  protected void hook()"), listing);
        assertTrue(lines.contains("protected interface " + W + "$Hook"), listing);
        assertTrue(lines.contains("  public void api()"), listing);
        for (String absent : List.of("finalProtectedField", "finalProtectedMethod", "FinalProtectedNested")) {
            assertFalse(listing.contains(absent), absent + " is not API:\n" + listing);
        }
    }

    @Test
    void membersInheritedFromANonPublicSuperclassAreListedAsTheSubclasses() {
        String gadget = "public class dev.khameleon.core.testkit.apifixture.Gadget"
                + " extends dev.khameleon.core.testkit.apifixture.GadgetBase\n";
        int start = listing.indexOf(gadget);
        assertTrue(start >= 0, listing);
        String block = listing.substring(start, listing.indexOf("\n\n", start));
        assertEquals(gadget + "  public Gadget()\n  public java.lang.String name()\n  public int size()\n"
                + "  protected void tune()", block);
        assertFalse(listing.contains("packageTune"), listing);
    }

    @Test
    void kindsSealingAndPermittedSubclassesAreShown() {
        String p = "dev.khameleon.core.testkit.apifixture.";
        List<String> lines = lines();
        assertTrue(lines.contains("public sealed interface " + p + "Shape permits " + p + "Blob, "
                + p + "Shape$Circle"), listing);
        assertTrue(lines.contains("public record " + p + "Shape$Circle implements " + p + "Shape"), listing);
        assertTrue(lines.contains("  public Circle(double)"), listing);
        assertTrue(lines.contains("  public double radius()"), listing);
        assertTrue(lines.contains("public non-sealed class " + p + "Blob implements " + p + "Shape"), listing);
        assertTrue(lines.contains("public enum " + p + "Color"), listing);
        assertTrue(lines.contains("  public static " + p + "Color valueOf(java.lang.String)"), listing);
        assertTrue(lines.contains("public @interface " + p + "Marker"), listing);
        assertTrue(lines.contains("  public abstract int value()"), listing);
    }

    @Test
    void outputIsSortedAndTheSameWhateverOrderTheClassesComeIn() throws Exception {
        List<String> types = lines().stream().filter(l -> !l.isEmpty() && !l.startsWith(" "))
                .map(l -> l.replaceFirst("^.*? (dev\\.\\S+?)(<.*)?( .*)?$", "$1")).collect(Collectors.toList());
        List<String> sortedTypes = new ArrayList<>(types);
        Collections.sort(sortedTypes);
        assertEquals(sortedTypes, types);
        int block = lines().indexOf("public class " + W + "<T extends java.lang.Comparable<? super T>>"
                + " implements java.lang.Comparable<" + W + "<T>>");
        assertEquals(List.of("  public static final int LIMIT", "  protected int count", "  public Widget()",
                "  protected Widget(int)"), lines().subList(block + 1, block + 5));

        assertEquals(listing, ApiListing.render(classes));
        List<Class<?>> some = new ArrayList<>(List.of(Widget.class, FinalWidget.class, Shape.class, Blob.class,
                Color.class, Marker.class));
        String forwards = ApiListing.render(some);
        Collections.reverse(some);
        assertEquals(forwards, ApiListing.render(some));
    }

    @Test
    void theUpdatePropertyWritesTheListingAndThenItMatches(@TempDir Path dir) throws Exception {
        Path api = dir.resolve("api/fixture.api");
        ApiListing.assertMatches(classes, api, true);
        assertEquals(ApiListing.HEADER + listing, Files.readString(api));
        Files.writeString(api, "stale\n");
        ApiListing.assertMatches(classes, api, true);
        assertEquals(ApiListing.HEADER + listing, Files.readString(api));
        ApiListing.assertMatches(classes, api, false);
    }

    @Test
    void aMismatchFailsWithTheDifferenceAndHowToAcceptIt(@TempDir Path dir) throws Exception {
        Path api = dir.resolve("fixture.api");
        String committed = ApiListing.HEADER + listing.replace("  protected void hook()\n", "  public void gone()\n");
        Files.writeString(api, committed);
        AssertionError failure = assertThrows(AssertionError.class,
                () -> ApiListing.assertMatches(classes, api, false));
        String message = failure.getMessage();
        assertTrue(message.contains("\n@@ public class " + W + "<"), message);
        assertTrue(message.contains("\n-  public void gone()\n+  protected void hook()\n"), message);
        assertTrue(message.contains("-Dkhameleon.api.update=true"), message);
        assertTrue(message.contains("mvn -B -pl fixture -am test -Dtest=ApiListingTest"), message);
        assertEquals(committed, Files.readString(api), "a failing check leaves the file alone");
    }

    @Test
    void theDifferenceShownIsBounded() {
        List<String> added = IntStream.range(0, 100).mapToObj(i -> "  public void m" + i + "()")
                .collect(Collectors.toList());
        List<String> diff = ApiListingDiff.diff(List.of("public class A"), concat(List.of("public class A"), added),
                ApiListing.MAX_DIFF_LINES);
        assertEquals("@@ public class A", diff.get(0));
        assertEquals(ApiListing.MAX_DIFF_LINES, diff.stream().filter(l -> l.startsWith("+")).count());
        assertEquals("... and 60 more differing lines", diff.get(diff.size() - 1));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
