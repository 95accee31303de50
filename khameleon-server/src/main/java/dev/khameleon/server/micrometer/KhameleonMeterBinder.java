package dev.khameleon.server.micrometer;

import dev.khameleon.server.KhameleonServer;
import dev.khameleon.server.ServerMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Publishes a server's {@link KhameleonServer#metrics()} to a Micrometer registry: a gauge of active
 * sessions and of the mean scheduling time per chunk, and function counters for sessions opened and
 * rejected, refused handshakes, bytes and blocks pushed, blocks skipped, re-plans and chunks planned.
 * Meters are named {@code khameleon.*} and tagged with the given tags.
 *
 * <pre>{@code
 * new KhameleonMeterBinder(server, Tags.of("service", "gallery")).bindTo(registry);
 * }</pre>
 *
 * <p>Meters read the server's counters when the registry polls them; reading is cheap and
 * thread-safe.
 */
public final class KhameleonMeterBinder implements MeterBinder {
    private final KhameleonServer server;
    private final Iterable<Tag> tags;

    /** Binds {@code server}'s metrics with no extra tags. */
    public KhameleonMeterBinder(KhameleonServer server) {
        this(server, List.of());
    }

    /** Binds {@code server}'s metrics, tagging every meter with {@code tags}. */
    public KhameleonMeterBinder(KhameleonServer server, Iterable<Tag> tags) {
        this.server = Objects.requireNonNull(server, "server");
        this.tags = Objects.requireNonNull(tags, "tags");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        gauge(registry, "khameleon.sessions.active", "sessions open now", m -> m.activeSessions());
        gauge(registry, "khameleon.scheduling.chunk.mean", "mean scheduler time per chunk, microseconds",
                ServerMetrics::meanSchedulingMicros);
        counter(registry, "khameleon.sessions.opened", "sessions accepted", ServerMetrics::sessionsOpened);
        counter(registry, "khameleon.sessions.rejected", "sessions refused at the session cap",
                ServerMetrics::sessionsRejected);
        counter(registry, "khameleon.handshakes.refused", "upgrade requests refused", ServerMetrics::handshakesRefused);
        counter(registry, "khameleon.bytes.pushed", "block-frame bytes written", ServerMetrics::bytesPushed);
        counter(registry, "khameleon.blocks.pushed", "block frames written", ServerMetrics::blocksPushed);
        counter(registry, "khameleon.blocks.skipped", "blocks skipped after a failed fetch",
                ServerMetrics::blocksSkipped);
        counter(registry, "khameleon.replans", "re-plans", ServerMetrics::replans);
        counter(registry, "khameleon.chunks.planned", "scheduler invocations", ServerMetrics::chunksPlanned);
        counter(registry, "khameleon.sessions.resumed", "sessions resumed with the client's cache",
                ServerMetrics::sessionsResumed);
        counter(registry, "khameleon.resumes.refused", "resume requests answered with a fresh session",
                ServerMetrics::resumesRefused);
    }

    private void gauge(MeterRegistry registry, String name, String description, ToDoubleFunction<ServerMetrics> f) {
        Gauge.builder(name, server, s -> f.applyAsDouble(s.metrics())).description(description).tags(tags)
                .register(registry);
    }

    private void counter(MeterRegistry registry, String name, String description, ToDoubleFunction<ServerMetrics> f) {
        FunctionCounter.builder(name, server, s -> f.applyAsDouble(s.metrics())).description(description).tags(tags)
                .register(registry);
    }
}
