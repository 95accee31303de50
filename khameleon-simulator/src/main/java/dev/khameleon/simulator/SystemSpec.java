package dev.khameleon.simulator;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * One system the simulator can run, as {@link SystemRegistry} holds it: the name a run is asked by
 * (and reported under, in {@code results.csv}'s {@code system} column), the group it belongs to, a
 * one-line description, and the maker of a fresh instance for each run. Its settings live in the
 * maker, fixed when the entry is made; a variant is another entry, never a name to parse.
 *
 * @param name        the system's name, unique in the registry
 * @param group       what kind of system it is
 * @param description one line for {@code khameleon-simulator systems}
 * @param factory     makes a new, single-use instance
 */
public record SystemSpec(String name, Group group, String description, Supplier<SimSystem> factory) {
    /** What kind of system an entry is. */
    public enum Group {
        /** The library as it ships, and the bounds it is measured against (oracle, uniform). */
        PUSH("push"),
        /** The paper's request-response baselines and its ACC prefetcher. */
        BASELINE("baseline"),
        /** A system with one part of the product replaced, to measure what that part costs. */
        ABLATION("ablation"),
        /** A research probe whose results docs/benchmarks.md records; not a product setting. */
        PROBE("probe");

        private final String label;

        Group(String label) {
            this.label = label;
        }

        /** The group's name as {@code khameleon-simulator systems} prints it. */
        public String label() {
            return label;
        }
    }

    /** Checks that every part is present and the name is not blank. */
    public SystemSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(factory, "factory");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a system needs a name");
        }
    }

    /** A fresh instance for one run. */
    public SimSystem create() {
        return factory.get();
    }
}
