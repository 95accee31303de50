package dev.khameleon.core.testkit.apifixture;

/** A fixture for ApiListingGeneratorTest: a final class, whose protected members nobody outside can reach. */
public final class FinalWidget {
    /** Protected in a final class: not API. */
    protected int finalProtectedField;

    /** Public: API. */
    public void api() {}

    /** Protected in a final class: not API. */
    protected void finalProtectedMethod() {}

    /** A protected member type of a final class: not API. */
    protected static class FinalProtectedNested {}
}
