/**
 * The Khameleon server: a Netty WebSocket server that, for each connected client, decodes its
 * prediction states into distributions, schedules blocks of progressively encoded responses and
 * pushes them at the client's bandwidth. Start one with {@link dev.khameleon.server.KhameleonServer#builder()},
 * mounting one or more {@link dev.khameleon.server.Application applications}, on a port of its own
 * or inside an application's own Netty pipeline ({@link dev.khameleon.server.KhameleonServer#mount()})
 * or WebSocket stack ({@link dev.khameleon.server.KhameleonServer#attach}); observe it through
 * {@link dev.khameleon.server.ServerMetrics} and {@link dev.khameleon.server.SessionMetrics}. The wire
 * protocol is specified in {@code docs/protocol.md}; operation in {@code docs/server.md}.
 *
 * <p>Inside (all package-private): {@code ServerSettings} holds and checks the builder's settings,
 * {@code ListeningPort} a started server's port and event loops, {@code AttachedConnections} the
 * connections other WebSocket stacks hand over. {@code WebSocketPipeline} adds a connection's
 * {@code ws-*} handlers in protocol order, ending with {@code ControlMessageCodec}
 * and {@code BlockFrameEncoder}, which turn WebSocket frames into protocol messages and back, and
 * {@code SessionHandler}, which hands them to the connection's {@code Session} (protocol state,
 * fetches, the paced sender). A session's {@code Plan} keeps the planned slots and decides when
 * and from where to re-plan, without Netty; {@code SessionScheduler} runs its scheduler jobs off
 * the event loop; {@code SlotFetcher} fetches and checks its planned blocks; {@code SessionCounters} holds its counters and {@code LoopTimer} its timers. Each application's SPIs are wrapped once, when it is built, in
 * {@code GuardedBlockSource}, {@code GuardedPredictor}, {@code GuardedSchedulerFactory} and
 * {@code GuardedRequestScope}, so user code can fail only the session that called it.
 */
package dev.khameleon.server;
