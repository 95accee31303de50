package dev.khameleon.client;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.protocol.ControlMessage.PredictionState;
import dev.khameleon.core.spi.ServerPredictor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.function.DoubleConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The prediction-accuracy metric: for each request the application makes, the probability mass
 * that the last state sent gave that request, at the time elapsed since the state, as a local
 * copy of the server half of the predictor decodes it. Each state is decoded once, however many
 * requests follow it. Without a model nothing is measured.
 *
 * <p><b>Threading.</b> Any thread, without a lock: the memo of the decoded state is one immutable
 * pair behind a volatile reference, so a reader sees a state together with its own distribution.
 * Two threads that find the memo stale at once may both decode the new state; the model is
 * thread-safe by contract ({@link ServerPredictor}) and both get the same distribution. Decoding
 * never holds up another thread. A model or recorder that throws is contained: that request is
 * not measured.
 */
final class PredictionAccuracy {
    // The client's messages keep the client's logger, so logging configurations still apply.
    private static final Logger LOG = LoggerFactory.getLogger(KhameleonClient.class);

    private final ServerPredictor model;
    private final Supplier<Optional<PredictionState>> lastSent;
    private final LongSupplier millisClock;
    private final DoubleConsumer recorder;
    private volatile Decoded memo;

    /**
     * Measures with {@code model} (null: never) the states {@code lastSent} reports, at times on
     * {@code millisClock} (the states' clock), and hands each mass, at most 1, to {@code recorder}.
     */
    PredictionAccuracy(ServerPredictor model, Supplier<Optional<PredictionState>> lastSent,
            LongSupplier millisClock, DoubleConsumer recorder) {
        this.model = model;
        this.lastSent = lastSent;
        this.millisClock = millisClock;
        this.recorder = recorder;
    }

    /**
     * Records the mass the last state sent gives {@code requestId} now; nothing if there is no
     * model, no state was sent yet, the id is outside the distribution, or decoding fails.
     */
    void record(int requestId) {
        if (model == null) {
            return;
        }
        Optional<PredictionState> sent = lastSent.get();
        if (sent.isEmpty()) {
            return;
        }
        try {
            Distribution d = decoded(sent.get());
            if (requestId < d.requestCount()) {
                long elapsed = Math.max(0, millisClock.getAsLong() - sent.get().timeMillis());
                recorder.accept(Math.min(1, d.probabilityAt(elapsed, requestId)));
            }
        } catch (RuntimeException e) {
            LOG.debug("prediction accuracy not recorded: {}", e.toString());
        }
    }

    private Distribution decoded(PredictionState state) {
        Decoded m = memo;
        if (m == null || !m.state.equals(state)) {
            m = new Decoded(state, model.decode(state.state()));
            memo = m;
        }
        return m.distribution;
    }

    /** A state and what the model decoded it to. */
    private record Decoded(PredictionState state, Distribution distribution) {
    }
}
