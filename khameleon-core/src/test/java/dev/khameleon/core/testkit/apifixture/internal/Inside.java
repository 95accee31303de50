package dev.khameleon.core.testkit.apifixture.internal;

/** A fixture for ApiListingGeneratorTest: public, but in an internal package, so not API. */
public class Inside {
    /** Public, but in an internal package. */
    public void insideMethod() {}
}
