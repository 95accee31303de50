package dev.khameleon.core.testkit.apifixture;

/** A fixture for ApiListingGeneratorTest: a package-private superclass whose public members are API of Gadget. */
abstract class GadgetBase {
    /** Public, inherited by the public Gadget: API there. */
    public String name() {
        return "gadget";
    }

    /** Public, overridden in Gadget: listed once. */
    public int size() {
        return 0;
    }

    /** Protected, inherited by an extensible public class: API there. */
    protected void tune() {}

    void packageTune() {}
}
