package dev.khameleon.core.scheduler;

/** An {@link IdTable} that holds every key's value in one array of {@code n}. */
final class DenseIdTable extends IdTable {
    private final int[] values;
    private final Defaults defaults;

    DenseIdTable(int n, Defaults defaults) {
        this.values = new int[n];
        this.defaults = defaults;
        defaults.fill(values);
    }

    @Override
    int get(int key) {
        return values[key];
    }

    @Override
    void set(int key, int value) {
        values[key] = value;
    }

    @Override
    void reset() {
        defaults.fill(values);
    }

    @Override
    int changed() {
        return -1;
    }

    @Override
    long retainedInts() {
        return values.length;
    }
}
