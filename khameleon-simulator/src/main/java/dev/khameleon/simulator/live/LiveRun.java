package dev.khameleon.simulator.live;

import dev.khameleon.core.protocol.BlockFrame;
import dev.khameleon.testing.BlockFrameTap;
import dev.khameleon.simulator.Recorder;
import dev.khameleon.simulator.SimConfig;
import dev.khameleon.simulator.Simulator;
import dev.khameleon.simulator.Workload;
import dev.khameleon.simulator.ZeroBlockSource;
import dev.khameleon.simulator.trace.PointerTrace;
import dev.khameleon.client.ClientListener;
import dev.khameleon.client.KhameleonClient;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.protocol.ControlMessage.Welcome;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * One live replay: the real {@link KhameleonServer} serving the simulator's workload, the real
 * {@link KhameleonClient} connected to it through a {@link LinkShaper}, and a pointer trace fed
 * to the client at its recorded pace, measured by the simulator's {@link Recorder}.
 *
 * <p>Time 0 is when the client's session opens (its welcome); the first sample comes
 * {@link SimConfig#warmupMillis()} later, as in the simulator. The run ends when the last request
 * reaches utility 1 or {@link Settings#drainMillis()} after the last request, whichever is first;
 * never-answered requests count up to the latter, as in the simulator.
 *
 * <p>Threading: one replay thread runs the replay, every {@link Recorder} call and the client's
 * upcalls; {@link #run} blocks its caller for the length of the trace. Not re-entrant with
 * respect to {@link Settings#port()}: one run at a time per port.
 */
final class LiveRun {
    /** The system name in the results: the library's Khameleon, as {@code simulate} names it. */
    static final String SYSTEM = "khameleon";
    private static final String APP = "live";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * What a live run adds to a {@link SimConfig}.
     *
     * @param drainMillis the longest time after the last request, ms
     * @param port        the shaper's port on 127.0.0.1 (0: any free one)
     * @param pace        replay speed: 1 the recorded pace, 2 twice as fast (the link is not scaled)
     */
    record Settings(double drainMillis, int port, double pace) {
    }

    /**
     * What the link carried during a run, from the client's welcome to the end of the replay.
     *
     * @param deliveredBytes     bytes the link delivered to the client (frames and their headers)
     * @param seconds            the run's length on the wall clock
     * @param linkBytesPerSecond the link's mean rate
     * @param maxQueuedBytes     the most its queue held
     */
    record Link(long deliveredBytes, double seconds, double linkBytesPerSecond, long maxQueuedBytes) {
        double deliveredBytesPerSecond() {
            return seconds > 0 ? deliveredBytes / seconds : 0;
        }

        /**
         * The delivered rate over the link's rate: 1 when the server kept the link full from the
         * welcome on (less for its start from 1 MB/s: about 0.93 in the simulator on 20 s at the
         * paper's default link).
         */
        double utilisation() {
            return deliveredBytesPerSecond() / linkBytesPerSecond;
        }
    }

    /** A run's result, with the simulator's metrics, and what its link carried. */
    record Outcome(Simulator.Result result, Link link) {
    }

    private LiveRun() {
    }


    /**
     * Runs {@code trace} live under {@code config} and returns the result, with the
     * simulator's metrics, for system {@value #SYSTEM}, and what the link carried. Once the link is
     * bound (bad input has been ruled out) prints one line to {@code progress}: {@code label}, the
     * trace, the mode and how long the run will take; at the end another: the bytes the link
     * delivered from the welcome to the end of the replay, their mean rate against the link's
     * ({@link Link#utilisation()}) and the most its queue held.
     *
     * @throws IllegalArgumentException if the cache holds no block or the port cannot be bound
     * @throws IllegalStateException if the session cannot be opened or breaks during the run
     */
    static Outcome run(SimConfig config, PointerTrace trace, Settings settings, PrintStream progress, String label) {
        if (config.alignHorizons()) {
            throw new IllegalArgumentException("--align-horizons is a simulator experiment; the live server does not "
                    + "shift horizons");
        }
        SimConfig cfg = config.toBuilder().drainMillis(settings.drainMillis()).build();
        double pace = settings.pace();
        // At pace F the trace and the request grid are both F times faster, so the same requests
        // are made, F times sooner.
        Simulator.Plan plan = pace == 1 ? Simulator.plan(cfg, trace)
                : Simulator.plan(cfg.toBuilder().sampleMillis(cfg.sampleMillis() / pace)
                        .thinkTimeMillis(cfg.thinkTimeMillis() / pace).build(), trace.scaled(1 / pace));
        Workload workload = plan.workload();
        long cacheBlocks = cfg.cacheBytes() / workload.blockBytes();
        if (cacheBlocks < 1 || cacheBlocks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("--cache-MB " + cfg.cacheMB() + " holds " + cacheBlocks + " blocks of "
                    + workload.blockBytes() + " bytes; the live client needs 1 to " + Integer.MAX_VALUE);
        }
        long seed = cfg.seed() * 0x9E3779B97F4A7C15L ^ (trace.name() + "|" + SYSTEM).hashCode();
        Application app = Application.builder(APP)
                .blockSource(new ZeroBlockSource(workload))
                .predictor(cfg.gaussianPredictor(workload.layout()))
                .utility(workload.utility())
                .horizons(cfg.horizonsMillis())
                .schedulerSettings(cfg.scheduler())
                .build();
        // The link binds first: a port in use fails before anything else starts.
        KhameleonServer[] server = new KhameleonServer[1];
        LinkShaper shaper = startShaper(cfg, settings, () -> server[0].localAddress());
        progress.printf(Locale.ROOT, "%s: %s, %s, about %.0f s%n", label, trace.name(), cfg.requestMode().label(),
                plan.endNanos() / 1e9);
        KhameleonClient<PointerEvent> client = null;
        ScheduledExecutorService replay = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "khameleon-live-replay");
            t.setDaemon(true);
            return t;
        });
        try {
            // The server's bandwidth settings stay at their defaults: it learns the link from the
            // client's rate reports, as a deployment would.
            server[0] = KhameleonServer.builder().host("127.0.0.1").port(0).application(app)
                    .maxCacheBlocks((int) Math.max(16_384, cacheBlocks))
                    .maxTotalCacheBlocks(Math.max(2_097_152L, cacheBlocks))
                    .seed(seed).build().start();
            CompletableFuture<Void> done = new CompletableFuture<>();
            WallTimeline timeline = new WallTimeline(replay, System::nanoTime, done);
            Recorder recorder = new Recorder(timeline::nowNanos, plan.requests().size(), workload.requestCount());
            LiveSystem[] system = new LiveSystem[1];
            long[] openedAt = {System.nanoTime()};
            client = KhameleonClient.builder()
                    .predictor(cfg.kalmanPredictor())
                    .uri(URI.create("ws://127.0.0.1:" + shaper.port() + app.path()))
                    .application(APP)
                    .cacheBlocks((int) cacheBlocks)
                    .utility(workload.utility())
                    .stateInterval(Duration.ofMillis(cfg.predictionIntervalMillis()))
                    .reconnect(false)
                    .resume(false)
                    .connectTimeout(CONNECT_TIMEOUT)
                    .upcallExecutor(task -> timeline.at(0, task))
                    // Arrivals as PushSystem's arrive learns them: once the client has handled a block frame.
                    .httpClient(new BlockFrameTap(HttpClient.newHttpClient(), new BlockFrameTap.Observer() {
                        @Override
                        public void afterListener(int connection, BlockFrame frame) {
                            int id = frame.block().requestId();
                            timeline.at(0, () -> system[0].arrived(id));
                        }
                    }))
                    .listener(new ClientListener() {
                        @Override
                        public void onConnected(Welcome welcome) {
                            openedAt[0] = System.nanoTime();
                            timeline.start();
                            recorder.probeCache(system[0]::answerBlocks, workload::utilityOf);
                            recorder.onLastConverged(() -> done.complete(null));
                            Simulator.replay(timeline, system[0], recorder, plan);
                            timeline.at(plan.endNanos(), () -> done.complete(null));
                        }

                        @Override
                        public void onDisconnected(int status, String reason, boolean willReconnect) {
                            done.completeExceptionally(new IllegalStateException("the live session ended during the "
                                    + "run: " + status + " " + reason));
                        }
                    })
                    .build();
            system[0] = new LiveSystem(client, recorder, workload);
            await(client.connect(), CONNECT_TIMEOUT.toMillis(), "opening the session through the link");
            await(done, plan.endNanos() / 1_000_000 + 60_000, "the replay");
            Link link = new Link(shaper.deliveredBytes(), (System.nanoTime() - openedAt[0]) / 1e9,
                    cfg.effectiveBandwidthMBps() * 1e6, shaper.maxQueuedBytes());
            Simulator.Result result = await(CompletableFuture.supplyAsync(
                    () -> Simulator.result(SYSTEM, cfg, trace, plan, recorder), replay), 60_000, "the result");
            progress.printf(Locale.ROOT, "%s: the link delivered %.1f MB in %.1f s, %.3f MB/s of %.3f (utilisation "
                    + "%.2f), its queue held at most %.0f KB%n", label, link.deliveredBytes() / 1e6, link.seconds(),
                    link.deliveredBytesPerSecond() / 1e6, cfg.effectiveBandwidthMBps(), link.utilisation(),
                    link.maxQueuedBytes() / 1e3);
            return new Outcome(result, link);
        } finally {
            if (client != null) {
                client.close();
            }
            if (server[0] != null) {
                server[0].close();
            }
            shaper.close();
            replay.shutdownNow();
        }
    }

    private static LinkShaper startShaper(SimConfig cfg, Settings settings, Supplier<InetSocketAddress> server) {
        DeliverySchedule down = cfg.networkTrace() != null ? DeliverySchedule.mahimahi(cfg.networkTrace())
                : DeliverySchedule.fixed(cfg.bandwidthMBps() * 1e6);
        // The simulator's own rule (SimConfig.linkQueueBytes), so that both model the same path.
        long queue = cfg.linkQueueBytes();
        if (queue < 1500) {
            throw new IllegalArgumentException("--link-queue-KB must hold one 1500-byte packet (>= 1.5) for a live"
                    + " run, was " + queue / 1e3);
        }
        try {
            return LinkShaper.start(settings.port(), server, down, cfg.oneWayNanos(), queue,
                    System::nanoTime);
        } catch (UncheckedIOException e) {
            throw new IllegalArgumentException("--port " + settings.port() + ": cannot listen on 127.0.0.1:"
                    + settings.port() + " (" + e.getCause().getMessage() + ")", e);
        }
    }

    private static <T> T await(CompletableFuture<T> future, long timeoutMillis, String what) {
        try {
            return future.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + " failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " did not finish within " + timeoutMillis + " ms", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted during " + what, e);
        }
    }
}
