package dev.khameleon.core.scheduler;

/**
 * What the scheduler may ask about the backend when a backend-concurrency limit {@code Cb} is
 * configured ({@link SchedulerConfig.Builder#backendConcurrency(int, BackendLoad)}): how many
 * fetches are in flight and whether a given request is among them.
 *
 * <p>The scheduler calls these methods from the thread that calls
 * {@link dev.khameleon.core.spi.Scheduler#next(int)}; implementations must be safe to call from
 * that thread while fetches complete on others (e.g. read an {@code AtomicInteger} and a
 * concurrent set). They must be cheap and must not block: {@link #isFetching} may be called
 * several times per planned block.
 */
public interface BackendLoad {

    /** {@code n_busy}: the number of backend fetches currently in flight, {@code >= 0}. */
    int inFlight();

    /** Whether a fetch for some block of {@code requestId} is currently in flight. */
    boolean isFetching(int requestId);

    /** A backend with nothing in flight, ever; useful in tests and simulations. */
    static BackendLoad idle() {
        return IdleBackend.INSTANCE;
    }
}

/** The {@link BackendLoad#idle()} singleton. */
enum IdleBackend implements BackendLoad {
    INSTANCE;

    @Override
    public int inFlight() {
        return 0;
    }

    @Override
    public boolean isFetching(int requestId) {
        return false;
    }
}
