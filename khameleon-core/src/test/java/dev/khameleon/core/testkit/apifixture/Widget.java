package dev.khameleon.core.testkit.apifixture;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** A fixture for ApiListingGeneratorTest: an extensible class with members of every access. */
public class Widget<T extends Comparable<? super T>> implements Comparable<Widget<T>> {
    /** Public: API. */
    public static final int LIMIT = 3;
    /** Protected in a class others can extend: API. */
    protected int count;
    int packageCount;
    private int secret;

    /** Public: API. */
    public Widget() {}

    /** Protected: API. */
    protected Widget(int count) {
        this.count = count;
    }

    Widget(String packageOnly) {
        this.packageCount = packageOnly.length();
    }

    /** A generic method with bounds, wildcards, varargs and a checked exception. */
    public <R extends Number & Comparable<R>> List<R> sorted(Collection<? extends R> items, String... labels)
            throws IOException {
        List<R> out = new ArrayList<>(items);
        out.sort(null);
        return out;
    }

    /** Protected: API. */
    protected void hook() {}

    void packageMethod() {}

    private void privateMethod() {
        secret++;
    }

    /** Compiles to a private synthetic lambda method, which is not API. */
    public Runnable task() {
        return () -> privateMethod();
    }

    /** Compiles to a bridge {@code compareTo(Object)} too, which is not API. */
    @Override
    public int compareTo(Widget<T> other) {
        return Integer.compare(count, other.count);
    }

    /** A public member type: API. */
    public static class Part {
        /** Public: API. */
        public void attach() {}
    }

    /** A protected member type of an extensible class: API. */
    protected interface Hook {
        /** Public (implicitly): API. */
        void fire();
    }

    private static class Hidden {
        /** Public, but of a private type. */
        public void hiddenMethod() {}
    }

    static class PackageNested {
        /** Public, but of a type that is not API. */
        public void packageNestedMethod() {}
    }
}
