package dev.khameleon.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Block;
import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import dev.khameleon.core.spi.ServerPredictor;
import dev.khameleon.core.spi.UtilityFunction;
import dev.khameleon.server.Application;
import dev.khameleon.server.KhameleonServer;
import dev.khameleon.server.VirtualSession;

/**
 * The server side of the simulator's push systems: the library's own {@link KhameleonServer}
 * push engine ({@link VirtualSession}) with the server's default settings, serving the workload's
 * blocks, on the virtual clock. Between it and the client: an {@link OutboundWindow} of the
 * server's water marks plus the path's buffer in front of the bottleneck link, then the one-way
 * delay. A scheduler job takes {@link SchedulerTime}'s charge of virtual time.
 *
 * <p>Single-use, on the simulator's event loop.
 */
final class EngineServer implements VirtualSession.Host {
    /** Where a block lands on the client. */
    interface Client {
        /** Frame {@code seq} carrying {@code block}, of {@code frameBytes} on the wire, arrives now. */
        void arrive(long seq, Block block, int frameBytes);
    }

    private static final String PATH = "/sim";

    private final SimContext ctx;
    private final Client client;
    private final OutboundWindow window;
    private final SchedulerTime schedulerTime;
    private final VirtualSession session;
    private boolean wakePending;

    /**
     * @param unitBytes         the bytes of one block
     * @param blocksPerResponse blocks of every response
     * @param cacheBlocks       the client's ring, in blocks
     * @param pathBytes         the path's buffer in front of the bottleneck (see {@link OutboundWindow})
     */
    EngineServer(SimContext ctx, int unitBytes, int blocksPerResponse, UtilityFunction utility, int cacheBlocks,
                 ServerPredictor predictor, long pathBytes, SchedulerTime schedulerTime, Client client) {
        this.ctx = ctx;
        this.client = client;
        this.schedulerTime = schedulerTime;
        int n = ctx.workload().requestCount();
        SimConfig c = ctx.config();
        Application app = Application.builder("sim").path(PATH)
                .blockSource(blocksPerResponse == 1 ? new ZeroBlockSource(n, unitBytes, 1, 0)
                        : new ZeroBlockSource(ctx.workload()))
                .predictor(predictor)
                .utility(utility)
                .horizons(c.horizonsMillis())
                .schedulerSettings(c.scheduler())
                .build();
        KhameleonServer server = KhameleonServer.builder()
                .application(app)
                .clock(ctx.loop()::nowNanos)
                .seed(ctx.random().nextLong())
                .maxCacheBlocks(Math.max(cacheBlocks, 1))
                .maxTotalCacheBlocks(Math.max(cacheBlocks, 1))
                .build();
        this.session = VirtualSession.open(server, PATH, cacheBlocks, this);
        // Opening only schedules events on the loop, so nothing asks the window before it exists.
        this.window = new OutboundWindow(pathBytes, session.writeBufferLowBytes(), session.writeBufferHighBytes());
    }

    /** A state the client sent arrives at the server now. */
    void onState(long timeMillis, JsonNode state) {
        session.onState(timeMillis, state);
    }

    /** A receive-rate report arrives at the server now. */
    void onRate(ControlMessage.RateReport report) {
        session.onRate(report);
    }

    /** The bytes of one block frame on the wire. */
    int frameBytes() {
        return session.frameBytes();
    }

    @Override
    public void at(long atNanos, Runnable task) {
        ctx.loop().at(Math.max(atNanos, ctx.loop().nowNanos()), task);
    }

    @Override
    public boolean isWritable() {
        long now = ctx.loop().nowNanos();
        if (window.isWritable(now)) {
            return true;
        }
        if (!wakePending) {
            wakePending = true;
            ctx.loop().at(window.writableAtNanos(now), () -> {
                wakePending = false;
                if (window.isWritable(ctx.loop().nowNanos())) {
                    session.onWritable();
                } else {
                    isWritable();
                }
            });
        }
        return false;
    }

    @Override
    public void send(long seq, Block block, int frameBytes) {
        long now = ctx.loop().nowNanos();
        long done = ctx.link().transmit(now, frameBytes);
        window.written(now, done, frameBytes);
        ctx.loop().at(done + ctx.oneWayNanos(), () -> client.arrive(seq, block, frameBytes));
    }

    @Override
    public long jobNanos(long measuredNanos, boolean decodedState, int blocks) {
        return schedulerTime.nanos(measuredNanos, decodedState, blocks);
    }

    @Override
    public void closed(ErrorCode code, String message) {
        throw new IllegalStateException("the server closed the simulated session (" + code.wireName() + "): "
                + message);
    }
}
