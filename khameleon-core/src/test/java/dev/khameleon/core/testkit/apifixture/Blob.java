package dev.khameleon.core.testkit.apifixture;

/** A fixture for ApiListingGeneratorTest: open again below a sealed interface. */
public non-sealed class Blob implements Shape {
    @Override
    public double area() {
        return 0;
    }
}
