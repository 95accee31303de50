package dev.khameleon.bench.sim;

/** Khameleon's push-based variants; wired to the library's scheduler and client classes. */
final class PushSystem implements SimSystem {
    private final String name;

    private PushSystem(String name) {
        this.name = name;
    }

    static PushSystem khameleon() {
        return new PushSystem("khameleon");
    }

    static PushSystem oracle() {
        return new PushSystem("oracle");
    }

    static PushSystem uniform() {
        return new PushSystem("uniform");
    }

    static PushSystem predictorOnly() {
        return new PushSystem("predictor-only");
    }

    @Override
    public void start(SimContext context) {
        throw new UnsupportedOperationException("system " + name
                + " needs the library's GreedyScheduler and client cache classes, not on main yet");
    }

    @Override
    public void onRequest(int seq, int requestId) {
    }
}
