package dev.khameleon.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.client.CacheManager;
import dev.khameleon.client.KalmanPredictor;
import dev.khameleon.client.PredictorManager;
import dev.khameleon.client.RingBufferCache;
import dev.khameleon.core.Block;
import dev.khameleon.core.Distribution;
import dev.khameleon.core.PointerEvent;
import dev.khameleon.core.ScheduleChunk;
import dev.khameleon.core.predict.GaussianGridPredictor;
import dev.khameleon.core.scheduler.SchedulerConfig;
import dev.khameleon.core.scheduler.Schedulers;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.Scheduler;
import dev.khameleon.core.spi.UtilityFunction;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Khameleon and its variants, driven through the library's own classes on the virtual clock:
 * the client's {@link KalmanPredictor} (or an oracle / uniform predictor) behind the client's own
 * {@link PredictorManager} (states every interval and on a miss, receive-rate reports) → up the
 * network → the server's push engine ({@link EngineServer}: the server's push policy, scheduler
 * jobs and pacer with the server's defaults, decoding states with {@link GaussianGridPredictor}) →
 * the server's outbound window and the downlink → the client's {@link RingBufferCache} and
 * {@link CacheManager} (direct upcall executor, clock = the virtual clock).
 *
 * <ul>
 *   <li>{@code khameleon}: Kalman filter, progressive blocks;</li>
 *   <li>{@code oracle}: the distribution at horizon {@code Δ} is all mass on the cell the
 *       pointer really occupies {@code Δ} after the prediction is made (read from the trace);</li>
 *   <li>{@code uniform}: the uniform distribution, sent once at the start;</li>
 *   <li>{@code predictor-only}: Kalman filter and joint scheduler, but each response is one
 *       block of the full image size (no progressive encoding; ablation);</li>
 *   <li>{@code stroke-end-oracle-W}: {@code ideal-sender} (so that only the forecast differs from
 *       that ablation's), except that during the last {@code W} ms of
 *       each stroke (see {@link Strokes}) the client's state is all mass, at every horizon, on the
 *       cell where that stroke stops (read from the trace): what a predictor that knew where a
 *       stroke ends {@code W} ms ahead would be worth, a yardstick for endpoint forecasts;
 *       {@code stroke-end-oracle-W-E} and {@code -W-E-S} are told it {@code E} px off, with
 *       {@code S} percent of the mass (see {@link StrokeEndForecast}).</li>
 * </ul>
 *
 * <p>{@code ideal-sender} is {@code khameleon} with the server replaced by an idealised one (an
 * ablation, the simulator's {@code khameleon} before it ran the server's engine): its sender is
 * ack-clocked, handing the next planned block to the link when the link has finished the previous
 * one, so a new distribution takes effect from the very next block; it knows the link's mean
 * rate, plans in zero time, and its client sends a state every interval whether or not it changed
 * and no rate reports.
 *
 * <p>Single-use, single-threaded (the event loop).
 */
final class PushSystem implements SimSystem {
    /** Where the distributions come from. */
    enum Predictor { KALMAN, ORACLE, UNIFORM }

    private static final byte[] NO_PAYLOAD = new byte[0];
    /** The client's default {@code missStateInterval}. */
    private static final long MISS_STATE_INTERVAL_NANOS = 20_000_000L;
    /** The client's default {@code rateInterval}. */
    private static final long RATE_INTERVAL_MILLIS = 500;

    private final String name;
    private final Predictor predictor;
    private final boolean progressive;
    /** Whether the server is the idealised sender ({@code ideal-sender}) rather than the push engine. */
    private final boolean ideal;
    /** For {@code stroke-end-oracle-W-E-S}: W in ms; 0 for every other system. */
    private final double strokeEndMillis;
    /** For {@code stroke-end-oracle-W-E-S}: E in px. */
    private final double strokeEndErrorPx;
    /** For {@code stroke-end-oracle-W-E-S}: S as a fraction. */
    private final double strokeEndShare;
    private StrokeEndForecast strokeEnd;

    private SimContext ctx;
    private long unitBytes;
    private int blocksPerResponse;
    private UtilityFunction utility;
    private Scheduler scheduler;
    private CacheManager manager;
    private KalmanPredictor kalman;
    private GaussianGridPredictor gaussian;
    private double slotMillis;
    private final ArrayDeque<long[]> planned = new ArrayDeque<>();
    private boolean sending;
    private long lastDistributionAt = -1;
    private long lastStateAt = Long.MIN_VALUE / 2;
    private boolean missDeferred;
    private EngineServer engine;
    private PredictorManager<PointerEvent> states;

    private PushSystem(String name, Predictor predictor, boolean progressive) {
        this(name, predictor, progressive, false, 0, 0, 1);
    }

    private PushSystem(String name, Predictor predictor, boolean progressive, boolean ideal, double strokeEndMillis,
            double strokeEndErrorPx, double strokeEndShare) {
        this.name = name;
        this.predictor = predictor;
        this.progressive = progressive;
        this.ideal = ideal;
        this.strokeEndMillis = strokeEndMillis;
        this.strokeEndErrorPx = strokeEndErrorPx;
        this.strokeEndShare = strokeEndShare;
    }

    static PushSystem khameleon() {
        return new PushSystem("khameleon", Predictor.KALMAN, true);
    }

    /** {@code khameleon} with the idealised sender in place of the server's push engine (ablation). */
    static PushSystem idealSender() {
        return new PushSystem("ideal-sender", Predictor.KALMAN, true, true, 0, 0, 1);
    }

    static PushSystem oracle() {
        return new PushSystem("oracle", Predictor.ORACLE, true);
    }

    static PushSystem uniform() {
        return new PushSystem("uniform", Predictor.UNIFORM, true);
    }

    static PushSystem predictorOnly() {
        return new PushSystem("predictor-only", Predictor.KALMAN, false);
    }

    /**
     * {@code stroke-end-oracle-W-E-S} for W = {@code windowMillis}, E = {@code errorPx} and S =
     * {@code sharePercent} (see the class description); {@code name} is the name it was asked by.
     */
    static PushSystem strokeEndOracle(String name, int windowMillis, int errorPx, int sharePercent) {
        return new PushSystem(name, Predictor.KALMAN, true, true, windowMillis, errorPx, sharePercent / 100.0);
    }

    @Override
    public void start(SimContext context) {
        this.ctx = context;
        Workload w = context.workload();
        this.unitBytes = progressive ? w.blockBytes() : w.imageBytes();
        this.blocksPerResponse = progressive ? w.blocksPerResponse() : 1;
        this.utility = progressive ? w.utility() : UtilityFunction.linear();
        long cacheBlocks = context.cacheBytes() / unitBytes;
        if (cacheBlocks < 1) {
            throw new IllegalArgumentException("system " + name + ": a cache of " + context.config().cacheMB()
                    + " MB holds no block of " + unitBytes + " bytes; push needs at least one");
        }
        if (!ideal && context.config().alignHorizons()) {
            throw new IllegalArgumentException("system " + name + ": --align-horizons shifts only the idealised"
                    + " sender's distributions (--systems ideal-sender); the server's push engine does not");
        }
        int ring = (int) Math.min(Integer.MAX_VALUE, cacheBlocks);
        this.manager = CacheManager.builder(new RingBufferCache(ring))
                .utility(utility)
                .upcallExecutor(Runnable::run)
                .clock(context.loop()::nowNanos)
                .build();
        buildPredictors(context);
        if (!ideal) {
            startEngine(context, ring);
            return;
        }
        // The idealised sender: only Kalman systems run on it (ideal-sender, stroke-end-oracle-*).
        this.scheduler = Schedulers.greedy(SchedulerConfig.builder()
                .cacheBlocks(ring)
                .requestCount(w.requestCount())
                .blocksPerRequest(blocksPerResponse)
                .utility(utility)
                .settings(context.config().scheduler())
                .seed(context.random().nextLong())
                .build());
        this.slotMillis = unitBytes * 1000.0 / context.link().meanBytesPerSecond();
        if (strokeEndMillis > 0) {
            this.strokeEnd = new StrokeEndForecast(context.trace(), w.layout(), strokeEndMillis, strokeEndErrorPx,
                    strokeEndShare, strokeEndErrorPx > 0 ? context.random().nextLong() : 0);
        }
        context.loop().at(0, this::predictTick);
    }

    /** The client's Kalman filter and the server's Gaussian predictor, as the simulator configures them. */
    private void buildPredictors(SimContext context) {
        if (predictor == Predictor.KALMAN) {
            this.kalman = context.config().kalmanPredictor();
            this.gaussian = context.config().gaussianPredictor(context.workload().layout());
        }
    }

    /**
     * The push engine's side of a run: the server's engine, the client's cache and its predictor
     * manager, whose checks run on the virtual clock (state and rate checks at their intervals, a
     * miss's deferred state at the end of its window).
     */
    private void startEngine(SimContext context, int cacheBlocks) {
        SimConfig c = context.config();
        int n = context.workload().requestCount();
        this.engine = new EngineServer(context, (int) unitBytes, blocksPerResponse, utility, cacheBlocks,
                new DistributionState(gaussian, n, c.horizonsMillis()), c.linkQueueBytes(), c.schedulerTime(),
                this::arrive);
        ClientPredictor<PointerEvent> client = new ClientPredictor<>() {
            @Override
            public void onEvent(PointerEvent event) {
                if (kalman != null) {
                    kalman.onEvent(event);
                }
            }

            @Override
            public JsonNode state(long nowMillis) {
                return clientStateJson(nowMillis * 1_000_000L);
            }
        };
        this.states = PredictorManager.builder(client, new PredictorManager.Sink() {
            @Override
            public void sendState(ControlMessage.PredictionState state) {
                ctx.loop().after(ctx.oneWayNanos(), () -> engine.onState(state.timeMillis(), state.state()));
            }

            @Override
            public void sendRate(ControlMessage.RateReport report) {
                ctx.loop().after(ctx.oneWayNanos(), () -> engine.onRate(report));
            }
        }).clock(() -> ctx.loop().nowNanos() / 1_000_000L)
                .stateInterval(Duration.ofMillis(c.predictionIntervalMillis()))
                .build();
        long stateEvery = c.predictionIntervalMillis() * 1_000_000L;
        long rateEvery = TimeUnit.MILLISECONDS.toNanos(RATE_INTERVAL_MILLIS);
        ctx.loop().at(0, new Runnable() {
            @Override
            public void run() {
                states.tick();
                ctx.loop().after(stateEvery, this);
            }
        });
        ctx.loop().at(rateEvery, new Runnable() {
            @Override
            public void run() {
                states.tick();
                ctx.loop().after(rateEvery, this);
            }
        });
    }

    /** The client's state as the engine's server predictor reads it ({@link DistributionState}). */
    private JsonNode clientStateJson(long nowNanos) {
        if (predictor == Predictor.ORACLE) {
            return DistributionState.encode(oracleDistribution(nowNanos));
        }
        if (predictor == Predictor.UNIFORM) {
            return DistributionState.encode(Distribution.uniform(ctx.workload().requestCount(),
                    ctx.config().horizonsMillis()));
        }
        Object s = clientState(nowNanos);
        return s instanceof Distribution d ? DistributionState.encode(d) : (JsonNode) s;
    }

    /** The idealised client sends its predictor state every interval; it reaches the server one way later. */
    private void predictTick() {
        long now = ctx.loop().nowNanos();
        lastStateAt = now;
        sendUp(clientState(now));
        ctx.loop().after(ctx.config().predictionIntervalMillis() * 1_000_000L, this::predictTick);
    }

    /**
     * What the client sends: its Kalman state, or, for {@code stroke-end-oracle-W-E-S} within the
     * last W ms of a stroke, the forecast of where the stroke stops (mixed with the Kalman one).
     */
    private Object clientState(long nowNanos) {
        Distribution end = strokeEnd == null ? null
                : strokeEnd.endAt((nowNanos - ctx.startNanos()) / 1e6, ctx.config().horizonsMillis());
        if (end != null && strokeEnd.share() >= 1) {
            return end; // the Kalman state is not needed: nothing of it is sent
        }
        JsonNode state = kalman.state(nowNanos / 1_000_000);
        return end == null ? state : StrokeEndForecast.mix(end, gaussian.decode(state), strokeEnd.share());
    }

    private Distribution oracleDistribution(long nowNanos) {
        long[] horizons = ctx.config().horizonsMillis();
        int n = ctx.workload().requestCount();
        Distribution.Builder b = Distribution.builder(n, horizons);
        for (int j = 0; j < horizons.length; j++) {
            int cell = ctx.requestAtTime(nowNanos + horizons[j] * 1_000_000L);
            if (cell >= 0) {
                b.explicit(j, cell, 1.0);
            } else {
                b.residual(j, 1.0);
            }
        }
        return b.build();
    }

    /** The idealised sender's path up: the state is decoded when it reaches the server. */
    private void sendUp(Object message) {
        long madeAt = ctx.loop().nowNanos();
        ctx.loop().after(ctx.oneWayNanos(), () -> {
            Distribution d = message instanceof Distribution dist ? dist : gaussian.decode((JsonNode) message);
            if (ctx.config().alignHorizons()) {
                long landsAt = Math.max(ctx.loop().nowNanos(), ctx.link().busyUntilNanos()) + ctx.oneWayNanos();
                d = HorizonShift.shift(d, (landsAt - madeAt) / 1e6);
            }
            onDistribution(d);
        });
    }

    /** Server side: re-plan from the first block not yet on the wire, then make sure the sender runs. */
    private void onDistribution(Distribution d) {
        long fromSeq = planned.isEmpty() ? scheduler.nextSeq() : planned.peekFirst()[0];
        planned.clear();
        scheduler.replan(d, fromSeq, slotMillis);
        lastDistributionAt = ctx.loop().nowNanos();
        if (!sending) {
            sendNext();
        }
    }

    private void sendNext() {
        if (planned.isEmpty()) {
            // bs = min(C, bs) as in the paper's Listing 1: planned-but-unsent slots must stay
            // re-plannable (the scheduler keeps the last 2C slots).
            ScheduleChunk chunk = scheduler.next(Math.min(ctx.config().scheduler().chunkSize(), scheduler.cacheBlocks()));
            for (int k = 0; k < chunk.size(); k++) {
                planned.add(new long[] {chunk.firstSeq() + k, chunk.requestId(k), chunk.blockIndex(k)});
            }
        }
        long[] slot = planned.pollFirst();
        if (slot == null) {
            sending = false;
            return;
        }
        sending = true;
        long now = ctx.loop().nowNanos();
        long done = ctx.link().transmit(now, unitBytes);
        Block block = Block.wrap((int) slot[1], (int) slot[2], blocksPerResponse, NO_PAYLOAD, 0);
        long seq = slot[0];
        ctx.loop().at(done + ctx.oneWayNanos(), () -> arrive(seq, block));
        ctx.loop().at(Math.max(done, now + 1), this::sendNext);
    }

    /** Client side: the block lands in the ring; the cache manager makes its upcalls. */
    private void arrive(long seq, Block block, int frameBytes) {
        if (states != null) {
            states.recordReceived(frameBytes, seq);
        }
        arrive(seq, block);
    }

    private void arrive(long seq, Block block) {
        int id = block.requestId();
        if (!manager.onBlock(seq, block)) {
            return;
        }
        ctx.recorder().received(id, unitBytes);
        int prefix = manager.cache().prefixLength(id);
        if (prefix > 0) {
            // The paper's metrics: a request the library's cache manager already dropped (it
            // preempts at the next registration) still counts as answered here if its data
            // arrives before a newer request is answered; see Recorder.
            ctx.recorder().available(id, utilityOf(prefix), prefix * unitBytes);
        }
    }

    private double utilityOf(int prefix) {
        return prefix >= blocksPerResponse ? 1.0 : utility.utility((double) prefix / blocksPerResponse);
    }

    @Override
    public void onPointer(double x, double y) {
        if (states != null) {
            states.onEvent(new PointerEvent(x, y, ctx.loop().nowNanos() / 1_000_000));
        } else if (kalman != null) {
            kalman.onEvent(new PointerEvent(x, y, ctx.loop().nowNanos() / 1_000_000));
        }
    }

    @Override
    public void onRequest(int seq, int requestId) {
        boolean hit = manager.register(requestId, response -> ctx.recorder().available(requestId, response.utility(),
                (long) response.blocks().size() * unitBytes));
        if (!hit && states != null) {
            states.onMiss();
            // Without a scheduler the manager sends a deferred miss's state at the next tick: at the window's end.
            ctx.loop().after(MISS_STATE_INTERVAL_NANOS, states::tick);
        } else if (!hit && kalman != null) {
            sendStateOnMiss();
        }
    }

    /**
     * Like the library's client: a miss sends a fresh state at once, at most one per interval; a
     * miss inside the interval sends at its end, unless a state went out meanwhile.
     */
    private void sendStateOnMiss() {
        long now = ctx.loop().nowNanos();
        long dueAt = lastStateAt + MISS_STATE_INTERVAL_NANOS;
        if (now < dueAt) {
            if (!missDeferred) {
                missDeferred = true;
                long sentBefore = lastStateAt;
                ctx.loop().at(dueAt, () -> {
                    missDeferred = false;
                    if (lastStateAt == sentBefore) {
                        sendMissState();
                    }
                });
            }
            return;
        }
        sendMissState();
    }

    private void sendMissState() {
        long now = ctx.loop().nowNanos();
        lastStateAt = now;
        sendUp(clientState(now));
    }

    @Override
    public int answerBlocks(int requestId) {
        return manager.cache().prefixLength(requestId);
    }

    @Override
    public String toString() {
        return "PushSystem[" + name + ", last distribution at " + lastDistributionAt + " ns]";
    }
}
