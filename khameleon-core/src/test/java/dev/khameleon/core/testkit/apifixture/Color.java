package dev.khameleon.core.testkit.apifixture;

/** A fixture for ApiListingGeneratorTest: an enum with a constant body (sealed, as javac makes it). */
public enum Color {
    /** Plain. */
    RED,
    /** With a body, an anonymous subclass that is not API. */
    GREEN {
        @Override
        public String label() {
            return "green";
        }
    };

    /** Public: API. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
