package dev.khameleon.core.testkit.apifixture;

/** A fixture for ApiListingGeneratorTest: an annotation type. */
public @interface Marker {
    /** An element: API. */
    int value();
}
