package dev.khameleon.examples.crossfilter;

/** The six flights views ({@link Views#flights()}) by name, for tests. */
final class FlightsViews {
    /** The flights configuration. */
    static final Views VIEWS = Views.flights();
    /** Flight distance in miles. */
    static final View DISTANCE = VIEWS.view("DISTANCE");
    /** Arrival time in hours since midnight. */
    static final View ARR_TIME = VIEWS.view("ARR_TIME");
    /** Departure time in hours since midnight. */
    static final View DEP_TIME = VIEWS.view("DEP_TIME");
    /** Departure delay in minutes. */
    static final View DEP_DELAY = VIEWS.view("DEP_DELAY");
    /** Arrival delay in minutes. */
    static final View ARR_DELAY = VIEWS.view("ARR_DELAY");
    /** Time in the air in minutes. */
    static final View AIR_TIME = VIEWS.view("AIR_TIME");

    private FlightsViews() {
    }

    /** The six views in order, a fresh array (as the enum's {@code values()} was). */
    static View[] values() {
        return VIEWS.list().toArray(View[]::new);
    }

    /** No brush on any flights view. */
    static Filters none() {
        return Filters.none(VIEWS);
    }
}
