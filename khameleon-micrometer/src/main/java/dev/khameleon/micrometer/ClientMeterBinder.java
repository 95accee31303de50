package dev.khameleon.micrometer;

import dev.khameleon.client.CacheManager;
import dev.khameleon.client.ClientMetrics;
import dev.khameleon.client.KhameleonClient;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Publishes a Khameleon client's {@link ClientMetrics} to a Micrometer registry, as meters named
 * {@code khameleon.client.*} tagged with the given tags:
 *
 * <ul>
 *   <li>function counters: {@code requests}, {@code hits}, {@code preempted}, {@code answered},
 *       {@code upcalls}, {@code upcall.failures}, {@code blocks.received}, {@code blocks.refused},
 *       {@code blocks.used}, {@code converged};</li>
 *   <li>gauges: {@code hit.ratio}, {@code preempted.ratio}, {@code latency.mean},
 *       {@code latency.p50}, {@code latency.p99} (milliseconds), {@code utility.first},
 *       {@code convergence.p50} (milliseconds), {@code overpush.ratio},
 *       {@code prediction.accuracy}.</li>
 * </ul>
 *
 * <p>A gauge with no sample behind it yet (a ratio before any request, a latency before any
 * answer, an accuracy the client cannot evaluate) reads {@code NaN}, which registries skip or show
 * as missing, never a 0 that could pass for a measurement.
 *
 * <pre>{@code
 * new ClientMeterBinder(client, Tags.of("app", "gallery")).bindTo(registry);
 * }</pre>
 *
 * <p>Each meter takes a fresh snapshot when the registry polls it: thread-safe, and cheap enough
 * for scrape intervals of a second or more (a snapshot copies two HdrHistograms).
 */
public final class ClientMeterBinder implements MeterBinder {
    private static final String PREFIX = "khameleon.client.";

    /** What the meters observe; Micrometer holds it weakly, so meters end with the client. */
    private final Object source;
    private final Supplier<ClientMetrics> metrics;
    private final Iterable<Tag> tags;

    /** Binds {@code client}'s metrics with no extra tags. */
    public ClientMeterBinder(KhameleonClient<?> client) {
        this(client, List.of());
    }

    /** Binds {@code client}'s metrics, tagging every meter with {@code tags}. */
    public ClientMeterBinder(KhameleonClient<?> client, Iterable<Tag> tags) {
        this(client, Objects.requireNonNull(client, "client")::metrics, tags);
    }

    /** Binds the metrics of a {@link CacheManager} driven without a network client. */
    public ClientMeterBinder(CacheManager manager, Iterable<Tag> tags) {
        this(manager, Objects.requireNonNull(manager, "manager")::metrics, tags);
    }

    private ClientMeterBinder(Object source, Supplier<ClientMetrics> metrics, Iterable<Tag> tags) {
        this.source = source;
        this.metrics = metrics;
        this.tags = Objects.requireNonNull(tags, "tags");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(registry, "requests", "requests the application registered", ClientMetrics::registrations);
        counter(registry, "hits", "requests whose block 0 was cached at registration", ClientMetrics::hits);
        counter(registry, "preempted", "requests dropped without an upcall for a newer one",
                ClientMetrics::preempted);
        counter(registry, "answered", "requests that got a first upcall", ClientMetrics::answered);
        counter(registry, "upcalls", "upcalls made, first and progressive", ClientMetrics::upcalls);
        counter(registry, "upcall.failures", "upcalls that threw or could not be scheduled",
                ClientMetrics::upcallFailures);
        counter(registry, "blocks.received", "blocks the cache accepted", ClientMetrics::blocksReceived);
        counter(registry, "blocks.refused", "blocks the cache refused", ClientMetrics::blocksRefused);
        counter(registry, "blocks.used", "received blocks that were part of an upcall's answer",
                ClientMetrics::blocksUsed);
        counter(registry, "converged", "latest requests answered in full", ClientMetrics::convergenceSamples);

        gauge(registry, "hit.ratio", null, "hits / requests", ClientMetrics::registrations, ClientMetrics::hitRate);
        gauge(registry, "preempted.ratio", null, "preempted / requests", ClientMetrics::registrations,
                ClientMetrics::preemptedFraction);
        gauge(registry, "latency.mean", "milliseconds", "mean registration-to-first-upcall time",
                ClientMetrics::answered, ClientMetrics::meanLatencyMillis);
        gauge(registry, "latency.p50", "milliseconds", "median registration-to-first-upcall time",
                ClientMetrics::answered, m -> m.latencyMillis(50));
        gauge(registry, "latency.p99", "milliseconds", "99th percentile registration-to-first-upcall time",
                ClientMetrics::answered, m -> m.latencyMillis(99));
        gauge(registry, "utility.first", null, "mean utility of first upcalls", ClientMetrics::answered,
                ClientMetrics::meanUtilityAtFirstUpcall);
        gauge(registry, "convergence.p50", "milliseconds", "median time to a complete answer after the pointer "
                + "stops", ClientMetrics::convergenceSamples, m -> m.convergenceMillis(50));
        gauge(registry, "overpush.ratio", null, "received blocks never used / received",
                ClientMetrics::blocksReceived, ClientMetrics::overPushFraction);
        gauge(registry, "prediction.accuracy", null, "mean probability the last prediction gave the request made",
                ClientMetrics::predictionSamples, ClientMetrics::predictionAccuracy);
    }

    private void counter(MeterRegistry registry, String name, String description, ToLongFunction<ClientMetrics> f) {
        FunctionCounter.builder(PREFIX + name, source, s -> f.applyAsLong(metrics.get()))
                .description(description).tags(tags).register(registry);
    }

    /** A gauge of {@code value}, or NaN while {@code samples} is 0. */
    private void gauge(MeterRegistry registry, String name, String unit, String description,
                       ToLongFunction<ClientMetrics> samples, ToDoubleFunction<ClientMetrics> value) {
        Gauge.builder(PREFIX + name, source, s -> {
            ClientMetrics m = metrics.get();
            return samples.applyAsLong(m) == 0 ? Double.NaN : value.applyAsDouble(m);
        }).description(description).baseUnit(unit).tags(tags).register(registry);
    }
}
