package dev.khameleon.core.testkit.apifixture;

/** A fixture for ApiListingGeneratorTest: a sealed interface, a record, a non-sealed class. */
public sealed interface Shape permits Shape.Circle, Blob {
    /** An abstract interface method: API. */
    double area();

    /** A record: its components' accessors and its constructor are API. */
    record Circle(double radius) implements Shape {
        @Override
        public double area() {
            return Math.PI * radius * radius;
        }
    }
}
