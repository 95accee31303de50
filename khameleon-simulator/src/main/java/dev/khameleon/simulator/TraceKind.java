package dev.khameleon.simulator;

import dev.khameleon.simulator.trace.PointerTrace;

/**
 * What kind of pointer recording a trace is, judged from its measured median interval between
 * consecutive samples (never from who recorded it): {@link #SIXTY_HZ} traces sample the pointer
 * while it moves, like the paper's; {@link #COALESCED} traces report it in batches (Balabit's
 * remote-desktop sessions, ~110–125 ms), so a fast movement is a few jumps.
 */
public enum TraceKind {
    /** Median interval at most {@link #THRESHOLD_MILLIS}: every ~16–20 ms while moving. */
    SIXTY_HZ("60hz"),
    /** Median interval above {@link #THRESHOLD_MILLIS}. */
    COALESCED("coalesced");

    /**
     * The boundary between the kinds, in ms: 40 ms lies well between 60 Hz sampling (16.7 ms) and
     * the 110–125 ms batches of the coalesced Balabit sessions.
     */
    public static final double THRESHOLD_MILLIS = 40;

    private final String label;

    TraceKind(String label) {
        this.label = label;
    }

    /** The name used in reports: {@code 60hz} or {@code coalesced}. */
    public String label() {
        return label;
    }

    /** The kind of a trace whose median inter-sample interval is {@code medianIntervalMillis}. */
    public static TraceKind of(double medianIntervalMillis) {
        return medianIntervalMillis <= THRESHOLD_MILLIS ? SIXTY_HZ : COALESCED;
    }

    /** The kind of {@code trace}, from {@link PointerTrace#medianIntervalMillis()}. */
    public static TraceKind of(PointerTrace trace) {
        return of(trace.medianIntervalMillis());
    }
}
