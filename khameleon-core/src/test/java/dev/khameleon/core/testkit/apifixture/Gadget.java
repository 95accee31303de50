package dev.khameleon.core.testkit.apifixture;

/** A fixture for ApiListingGeneratorTest: a public class over a package-private superclass. */
public class Gadget extends GadgetBase {
    @Override
    public int size() {
        return 1;
    }
}
