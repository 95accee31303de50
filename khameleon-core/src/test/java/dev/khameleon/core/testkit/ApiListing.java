package dev.khameleon.core.testkit;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A module's public API as a sorted text listing, and the check that it equals the listing
 * committed in {@code api/<artifactId>.api}, so that a change to the API is a reviewed diff
 * (docs/releasing.md, "API listings"). Used by each published module's {@code ApiListingTest}.
 *
 * <p>The API is every public top-level type, every public or protected member type of an API type,
 * and their public or protected constructors, methods and fields, with generic signatures; methods
 * and fields a type inherits from a non-public superclass are listed as its own.
 * Protected members of final classes and enums are left out (no one outside the package can reach
 * them), as are synthetic and bridge members, and every type in a package with an {@code internal}
 * segment. One type per block, blocks sorted by binary name, members sorted by kind, name and
 * signature: the same classes always give the same text.
 */
public final class ApiListing {
    /** The system property that, set to {@code true}, makes {@link #assertMatches} rewrite the file. */
    public static final String UPDATE_PROPERTY = "khameleon.api.update";

    /** The first lines of every listing file: what it is and how to change it. */
    public static final String HEADER = """
            # The public API of this module, checked by its ApiListingTest; not edited by hand. After a
            # deliberate change, run that test with -D%s=true and review the diff (docs/releasing.md).
            """.formatted(UPDATE_PROPERTY);

    /** The most differing lines a failure message shows; the rest are counted. */
    public static final int MAX_DIFF_LINES = 40;

    private static final int TYPE_MODIFIERS = Modifier.PUBLIC | Modifier.PROTECTED | Modifier.STATIC
            | Modifier.ABSTRACT | Modifier.FINAL;

    private ApiListing() {}

    /**
     * Checks the module whose directory is the working directory (as under Surefire): the listing of
     * {@code target/classes} must equal {@code api/<artifactId>.api}. With the system property
     * {@value #UPDATE_PROPERTY} set to {@code true} a differing file is rewritten instead.
     *
     * @throws AssertionError if they differ and the property is not set, showing the difference
     */
    public static void assertMatches(String artifactId) throws IOException {
        assertMatches(Path.of("target", "classes"), Path.of("api", artifactId + ".api"),
                Boolean.getBoolean(UPDATE_PROPERTY));
    }

    /**
     * Checks that {@link #HEADER} plus the listing of {@code classesDir} equals {@code apiFile}
     * (line endings aside). If they differ and {@code update} is set, writes the listing to
     * {@code apiFile} and returns; otherwise throws.
     *
     * @throws AssertionError if they differ and {@code update} is not set: the message holds up to
     *     {@value #MAX_DIFF_LINES} differing lines ({@code +} added, {@code -} removed, each group
     *     after the type it is in) and the command that accepts the change
     */
    public static void assertMatches(Path classesDir, Path apiFile, boolean update) throws IOException {
        String actual = HEADER + render(classesDir);
        String expected = Files.exists(apiFile) ? Files.readString(apiFile).replace("\r\n", "\n") : "";
        if (actual.equals(expected)) {
            return;
        }
        if (update) {
            Files.createDirectories(apiFile.toAbsolutePath().getParent());
            Files.writeString(apiFile, actual);
            System.out.println("[API] rewrote " + apiFile + ": review it with git diff");
            return;
        }
        String module = apiFile.getFileName().toString().replaceFirst("\\.api$", "");
        throw new AssertionError("The public API differs from " + apiFile
                + (Files.exists(apiFile) ? "" : " (no such file)") + " (+ added, - removed):\n"
                + String.join("\n", ApiListingDiff.diff(lines(expected), lines(actual), MAX_DIFF_LINES))
                + "\nIf the change is deliberate, accept it: run the test with -D" + UPDATE_PROPERTY
                + "=true, which rewrites " + apiFile + ", then review and commit its git diff:\n"
                + "  mvn -B -pl " + module + " -am test -Dtest=ApiListingTest"
                + " -Dsurefire.failIfNoSpecifiedTests=false -D" + UPDATE_PROPERTY + "=true");
    }

    /**
     * The listing of every class under {@code classesDir} (a compiled classes directory), loaded
     * without initialising it through a loader that asks the caller's class path first.
     *
     * @throws IllegalStateException naming the classes that could not be loaded or reflected on
     */
    public static String render(Path classesDir) throws IOException {
        if (!Files.isDirectory(classesDir)) {
            throw new IllegalStateException(classesDir.toAbsolutePath() + " is not a classes directory");
        }
        List<String> names;
        try (Stream<Path> files = Files.walk(classesDir)) {
            names = files.map(p -> classesDir.relativize(p).toString().replace('\\', '/'))
                    .filter(p -> p.endsWith(".class") && !p.contains("$") && !p.endsWith("-info.class"))
                    .map(p -> p.substring(0, p.length() - ".class".length()).replace('/', '.'))
                    .filter(n -> !isInternal(n))
                    .sorted()
                    .collect(Collectors.toList());
        }
        ClassLoader parent = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classesDir.toUri().toURL()}, parent)) {
            List<Class<?>> classes = new ArrayList<>();
            List<String> failures = new ArrayList<>();
            for (String name : names) {
                try {
                    classes.add(Class.forName(name, false, loader));
                } catch (ClassNotFoundException | LinkageError e) {
                    failures.add(name + ": " + e);
                }
            }
            if (!failures.isEmpty()) {
                throw new IllegalStateException("cannot load " + String.join("; ", failures));
            }
            return render(classes);
        }
    }

    /**
     * The listing of the given top-level classes and their API member types; classes that are not
     * public, and those in {@code internal} packages, contribute nothing.
     *
     * @throws IllegalStateException if a signature names a class that is not on the class path
     */
    public static String render(Collection<Class<?>> topLevel) {
        Map<String, Class<?>> types = new TreeMap<>();
        for (Class<?> c : topLevel) {
            if (Modifier.isPublic(c.getModifiers()) && !isInternal(c.getName())) {
                collect(c, types);
            }
        }
        StringBuilder out = new StringBuilder();
        for (Class<?> c : types.values()) {
            try {
                out.append('\n').append(header(c)).append('\n');
                for (String member : members(c)) {
                    out.append("  ").append(member).append('\n');
                }
            } catch (LinkageError | TypeNotPresentException e) {
                throw new IllegalStateException("cannot reflect on " + c.getName() + ": " + e, e);
            }
        }
        return out.toString();
    }

    private static void collect(Class<?> c, Map<String, Class<?>> types) {
        types.put(c.getName(), c);
        for (Class<?> nested : c.getDeclaredClasses()) {
            if (!nested.isSynthetic() && isApi(nested.getModifiers(), c)) {
                collect(nested, types);
            }
        }
    }

    /** A member of an API type is API if public, or protected in a type others can extend. */
    private static boolean isApi(int modifiers, Class<?> declaring) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers)
                && !Modifier.isFinal(declaring.getModifiers()) && !declaring.isEnum();
    }

    private static boolean isInternal(String className) {
        return Arrays.asList(className.split("\\.")).contains("internal");
    }

    private static String header(Class<?> c) {
        int mods = c.getModifiers() & TYPE_MODIFIERS;
        // Drop the modifiers each kind implies, so a listing line reads like the declaration.
        if (c.isInterface()) {
            mods &= ~(Modifier.ABSTRACT | Modifier.STATIC);
        }
        if (c.isEnum() || c.isRecord()) {
            mods &= ~(Modifier.ABSTRACT | Modifier.STATIC | Modifier.FINAL);
        }
        List<String> words = new ArrayList<>();
        if (mods != 0) {
            words.add(Modifier.toString(mods));
        }
        // Enums with constant bodies are sealed over anonymous classes: nothing a user can name.
        if (!c.isEnum() && c.isSealed()) {
            words.add("sealed");
        } else if (!Modifier.isFinal(c.getModifiers()) && !c.isEnum() && extendsSealed(c)) {
            words.add("non-sealed");
        }
        words.add(c.isAnnotation() ? "@interface" : c.isInterface() ? "interface" : c.isEnum() ? "enum"
                : c.isRecord() ? "record" : "class");
        words.add(c.getName() + typeParameters(c.getTypeParameters(), ""));
        Type superclass = c.getGenericSuperclass();
        if (superclass != null && !c.isEnum() && !c.isRecord() && superclass != Object.class) {
            words.add("extends " + superclass.getTypeName());
        }
        List<String> interfaces = Arrays.stream(c.getGenericInterfaces()).map(Type::getTypeName)
                .filter(n -> !(c.isAnnotation() && n.equals("java.lang.annotation.Annotation")))
                .sorted().collect(Collectors.toList());
        if (!interfaces.isEmpty()) {
            words.add((c.isInterface() ? "extends " : "implements ") + String.join(", ", interfaces));
        }
        if (!c.isEnum() && c.isSealed()) {
            words.add("permits " + Arrays.stream(c.getPermittedSubclasses()).map(Class::getName)
                    .sorted().collect(Collectors.joining(", ")));
        }
        return String.join(" ", words);
    }

    private static boolean extendsSealed(Class<?> c) {
        return c.getSuperclass() != null && c.getSuperclass().isSealed()
                || Arrays.stream(c.getInterfaces()).anyMatch(Class::isSealed);
    }

    /** Fields, then constructors, then methods; each by name and parameters, then by the whole line. */
    private static List<String> members(Class<?> c) {
        List<String[]> keyed = new ArrayList<>();
        for (Constructor<?> k : c.getDeclaredConstructors()) {
            if (visible(k, c)) {
                keyed.add(new String[] {"1", signature(k), modifiers(k.getModifiers())
                        + typeParameters(k.getTypeParameters(), " ") + c.getSimpleName() + signature(k)});
            }
        }
        // A final method of a final class (a record's generated equals, say) says nothing more.
        int methodMask = Modifier.isFinal(c.getModifiers()) || c.isEnum() ? ~Modifier.FINAL : ~0;
        // Members a non-public superclass declares count as c's own: users call them through c.
        Set<String> seen = new HashSet<>();
        for (Class<?> t = c; t != null && (t == c || !Modifier.isPublic(t.getModifiers())); t = t.getSuperclass()) {
            for (Field f : t.getDeclaredFields()) {
                if (visible(f, c) && seen.add(f.getName())) {
                    keyed.add(new String[] {"0", f.getName(), modifiers(f.getModifiers())
                            + f.getGenericType().getTypeName() + " " + f.getName()});
                }
            }
            for (Method m : t.getDeclaredMethods()) {
                // Erased parameters: an override nearer to c hides the inherited method.
                if (visible(m, c) && seen.add(m.getName() + Arrays.toString(m.getParameterTypes()))) {
                    keyed.add(new String[] {"2", m.getName() + signature(m), modifiers(m.getModifiers() & methodMask)
                            + (m.isDefault() ? "default " : "") + typeParameters(m.getTypeParameters(), " ")
                            + m.getGenericReturnType().getTypeName() + " " + m.getName() + signature(m)});
                }
            }
        }
        keyed.sort(Comparator.<String[], String>comparing(k -> k[0]).thenComparing(k -> k[1])
                .thenComparing(k -> k[2]));
        return keyed.stream().map(k -> k[2]).collect(Collectors.toList());
    }

    /** Synthetic members (bridges, lambda bodies, enum {@code $VALUES}) are the compiler's, not API. */
    private static boolean visible(Member m, Class<?> declaring) {
        return !m.isSynthetic() && isApi(m.getModifiers(), declaring);
    }

    /** The modifiers that are API: not synchronized, native, transient, volatile or strictfp. */
    private static String modifiers(int modifiers) {
        int mods = modifiers & TYPE_MODIFIERS;
        return mods == 0 ? "" : Modifier.toString(mods) + " ";
    }

    private static String typeParameters(TypeVariable<?>[] variables, String after) {
        if (variables.length == 0) {
            return "";
        }
        return Arrays.stream(variables).map(v -> {
            List<String> bounds = Arrays.stream(v.getBounds()).filter(b -> b != Object.class)
                    .map(Type::getTypeName).collect(Collectors.toList());
            return bounds.isEmpty() ? v.getName() : v.getName() + " extends " + String.join(" & ", bounds);
        }).collect(Collectors.joining(", ", "<", ">" + after));
    }

    private static String signature(Executable e) {
        Type[] generic = e.getGenericParameterTypes();
        Class<?>[] raw = e.getParameterTypes();
        // An inner class's constructor has a Signature attribute without the enclosing instance:
        // take the leading parameters the generic list lacks from the raw one, so both forms agree.
        List<String> params = new ArrayList<>();
        for (int i = 0; i < raw.length; i++) {
            int g = i - (raw.length - generic.length);
            params.add(g < 0 ? raw[i].getTypeName() : generic[g].getTypeName());
        }
        if (e.isVarArgs() && !params.isEmpty()) {
            String last = params.remove(params.size() - 1);
            params.add(last.substring(0, last.length() - 2) + "...");
        }
        String throwsClause = Arrays.stream(e.getGenericExceptionTypes()).map(Type::getTypeName).sorted()
                .collect(Collectors.joining(", "));
        return "(" + String.join(", ", params) + ")" + (throwsClause.isEmpty() ? "" : " throws " + throwsClause);
    }

    private static List<String> lines(String text) {
        return text.isEmpty() ? List.of() : Arrays.asList(text.split("\n", -1));
    }
}
