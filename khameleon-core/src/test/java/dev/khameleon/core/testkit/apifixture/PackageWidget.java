package dev.khameleon.core.testkit.apifixture;

/** A fixture for ApiListingGeneratorTest: a package-private type, none of whose members are API. */
class PackageWidget {
    /** Public, but of a type that is not API. */
    public void packageWidgetMethod() {}
}
