// TypeScript declarations of khameleon.js, written by hand: every export of the module, with the
// promises its JSDoc makes. Members whose names start with an underscore are internal and left out.

/** The protocol version this module speaks. */
export declare const PROTOCOL_VERSION: 1;

/** The welcome feature of applications whose request ids mean different content per session. */
export declare const FEATURE_SCOPE: 'scope';

/** The feature of sessions that can be resumed on another connection, cache included (protocol section 8). */
export declare const FEATURE_RESUME: 'resume';

/** Manifest runs per message when resuming. */
export declare const RUNS_PER_MESSAGE: 1024;

/** A protocol violation by the peer; `code` is one of the protocol's error codes. */
export declare class ProtocolError extends Error {
  constructor(code: string, message: string);
  readonly name: 'ProtocolError';
  /** The protocol error code, e.g. `invalid_message`. */
  readonly code: string;
}

/** One decoded block frame (protocol section 4). */
export interface BlockFrame {
  /** Sequence number, >= 0. */
  readonly seq: number;
  readonly requestId: number;
  /** Block index within its response. */
  readonly index: number;
  /** Number of blocks of the response. */
  readonly count: number;
  /** Trailing payload bytes that are not part of the response. */
  readonly padding: number;
  /** The binding generation of its request the block answers (0: the default meaning). */
  readonly generation: number;
  /** The whole payload, padding included (a view, not a copy). */
  readonly payload: Uint8Array;
  /** Bytes of the frame, header included. */
  readonly frameBytes: number;
}

/**
 * Decodes and validates one binary block frame.
 * @throws {ProtocolError} `invalid_message` naming the offending field
 */
export declare function decodeBlockFrame(buffer: ArrayBuffer): BlockFrame;

/**
 * The client's FIFO ring of `capacity` blocks: the block with sequence number `s` goes to slot
 * `s mod capacity`, evicting whatever was there.
 */
export declare class RingBufferCache {
  /** @throws {RangeError} unless `capacity` is an integer >= 1 */
  constructor(capacity: number);
  readonly capacity: number;
  /** Blocks stored since creation. */
  readonly stored: number;
  /** Blocks overwritten since creation. */
  readonly evicted: number;
  /** Stores `frame` in slot `frame.seq mod capacity`; returns the block it evicted, if any. */
  put(frame: BlockFrame): BlockFrame | undefined;
  /** The longest run of blocks 0..j of `requestId` present, in order (empty if block 0 is absent). */
  prefix(requestId: number): BlockFrame[];
  /** Takes the frame with sequence number `seq` without storing it: its slot is emptied. */
  skip(seq: number): void;
  /** Drops every block of `requestId`; returns how many were dropped. */
  invalidate(requestId: number): number;
  /** How many blocks of `requestId` are present. */
  presentCount(requestId: number): number;
  /** Empties every slot, as for a new session. */
  clear(): void;
  /**
   * What the ring holds, for resuming a session: the `min(nextSeq, C)` slots before `nextSeq`,
   * oldest first, as `[requestId, firstBlock, count]` runs (`[-1, 0, count]` for empty slots).
   */
  manifest(nextSeq: number): number[][];
}

/** Concatenates the content (payload minus padding) of `blocks`. */
export declare function concatContent(blocks: readonly BlockFrame[]): Uint8Array;

/** What an upcall receives: the usable prefix of a response. */
export interface Response {
  readonly requestId: number;
  /** Blocks in the usable prefix, >= 1. */
  readonly blocks: number;
  /** Blocks of the whole response. */
  readonly blockCount: number;
  /** The prefix's content, padding removed. */
  readonly bytes: Uint8Array;
  /** U(blocks / blockCount). */
  readonly utility: number;
  /** Whether this is the registration's first upcall. */
  readonly first: boolean;
  /** Whether a block was already cached when the request was registered. */
  readonly hit: boolean;
  /** Registration to this upcall, milliseconds. */
  readonly latencyMs: number;
}

/** A request the application registered; its upcall runs until the response is complete or it is cancelled. */
export interface Registration {
  readonly requestId: number;
  /** Whether upcalls may still come. */
  readonly active: boolean;
  /** Stops further upcalls for this registration. */
  cancel(): void;
}

/** A rolling summary of client metrics. */
export interface Metrics {
  /** Requests registered. */
  readonly registrations: number;
  /** Registrations that found at least one block cached. */
  readonly hits: number;
  /** hits / registrations (0 before any). */
  readonly hitRate: number;
  /** Registrations dropped before any upcall because a newer one came first. */
  readonly preempted: number;
  /** Registrations that got a first upcall. */
  readonly answered: number;
  /** Mean registration-to-first-upcall latency (0 before any answer). */
  readonly meanLatencyMs: number;
  /** 95th percentile of the last latencies. */
  readonly p95LatencyMs: number;
  /** Mean utility at first upcall. */
  readonly meanUtility: number;
  /** Blocks received. */
  readonly blocksReceived: number;
  /** Distinct received blocks that were part of an upcall. */
  readonly blocksUsed: number;
  /** Blocks refused because they answered an old binding of their request. */
  readonly blocksStale: number;
  /** The last latencies, oldest first. */
  readonly recentLatenciesMs: readonly number[];
}

/** Options of a {@link CacheManager}. */
export interface CacheManagerOptions {
  /** Maps the fraction of blocks present to quality; default linear. */
  utility?: (fraction: number) => number;
  /** Millisecond clock; default `performance.now`. */
  now?: () => number;
  /** How many recent latencies `metrics()` keeps; default 200. */
  latencyWindow?: number;
}

/**
 * Hands responses to the application: upcalls at once on a hit, else when block 0 arrives, and
 * again each time the usable prefix grows. A newer registration preempts older ones that have had
 * no upcall yet. Upcalls run as microtasks, never re-entrantly from `register`.
 */
export declare class CacheManager {
  constructor(cache: RingBufferCache, options?: CacheManagerOptions);
  readonly cache: RingBufferCache;
  /** Registers interest in `requestId`; exceptions the upcall throws are logged and contained. */
  register(requestId: number, upcall: (response: Response) => void): Registration;
  /** The generation of `requestId`'s current binding (0: its default meaning). */
  generation(requestId: number): number;
  /** Whether a received frame answers its request's current binding; false counts it as stale. */
  accepts(frame: BlockFrame): boolean;
  /** Requests `requestIds[k]` now mean other content, answered by blocks of generation `generations[k]`. */
  rebind(requestIds: readonly number[], generations: readonly number[]): void;
  /** A new session begins: empties the cache and forgets bindings; registrations stay. */
  reset(): void;
  /** Called for every block stored in the cache. */
  onBlock(frame: BlockFrame): void;
  metrics(): Metrics;
}

/** A pointer event, in the coordinate system of the server's layout. */
export interface PointerSample {
  x: number;
  y: number;
  /** Epoch milliseconds. */
  timeMillis: number;
}

/**
 * The client half of a predictor: it sees the application's events and summarises them in a
 * small JSON state that the server half decodes.
 */
export interface ClientPredictor<E = PointerSample> {
  onEvent(event: E): void;
  /** The state to send at `nowMillis` (epoch milliseconds); any JSON value. */
  state(nowMillis: number): unknown;
}

/** Options of a {@link KalmanPredictor}; defaults equal the Java `KalmanPredictor`'s. */
export interface KalmanPredictorOptions {
  /** Forecast horizons in ms, non-negative integers strictly increasing; default [50, 150, 250, 500]. */
  horizons?: number[];
  /** Spectral density of the process noise, px²/s³; default 3e4. */
  processNoise?: number;
  /** Variance of each observed coordinate, px²; default 4. */
  measurementNoise?: number;
  /** Prior standard deviation of the velocity, px/s; default 1000. */
  initialVelocitySigma?: number;
  /** A longer gap between events restarts the filter; default 1000 ms. */
  resetAfterMillis?: number;
  /** The longest time without a movement before the pointer is at rest; default 250 ms. */
  idleMillis?: number;
  /** Velocity decay time constant; 0 for a pure constant-velocity model; default 150 ms. */
  velocityDecayMillis?: number;
  /** Standard deviation along the predicted displacement, as a share of its length; 0 for none; default 0.5. */
  alongTrackSpread?: number;
}

/** The state of a {@link KalmanPredictor}: the core `PointerForecast` JSON, or `{}` before the first event. */
export interface PointerForecast {
  x: number;
  y: number;
  /** Ms the pointer has rested (an integer, at most 5000); absent while it moves. */
  rest?: number;
  horizons: number[];
  /** Mean position per horizon, `[x, y]`. */
  mean: [number, number][];
  /** Covariance per horizon, `[varX, covXY, varY]`. */
  cov: [number, number, number][];
}

/**
 * A constant-velocity Kalman filter of the pointer position, the browser twin of the Java
 * `KalmanPredictor` (same model, same defaults, same state). Pure computation: no timers.
 */
export declare class KalmanPredictor implements ClientPredictor<PointerSample> {
  /** @throws {RangeError} naming a bad option */
  constructor(options?: KalmanPredictorOptions);
  readonly horizons: number[];
  /** Events with a non-finite field are ignored. */
  onEvent(event: PointerSample): void;
  state(nowMillis: number): PointerForecast | Record<string, never>;
  /** How long without a movement means the pointer is at rest, ms. */
  restAfterMillis(): number;
}

/** Options of a {@link PredictorManager}. */
export interface PredictorManagerOptions<E = PointerSample> {
  predictor: ClientPredictor<E>;
  /** Sends one control message. */
  send: (message: object) => void;
  /** Periodic state interval; default 150 ms. */
  stateIntervalMs?: number;
  /** Receive-rate report interval; default 500 ms. */
  rateIntervalMs?: number;
  /** Least time between the last state and one sent because a request missed; default 20 ms. */
  missStateIntervalMs?: number;
  /** Epoch-millisecond clock; default `Date.now`. */
  clock?: () => number;
  /**
   * Called as each rate report is built: the sequence number the client expects next (one past
   * the last block frame it received or skipped), sent as the report's `nextSeq`. Returning
   * `undefined`, or anything but an integer in [0, 2^53 − 1], leaves the field out; by default
   * reports carry none. {@link KhameleonClient} passes its session's value.
   */
  nextSeq?: () => number | undefined;
}

/**
 * Feeds events to a predictor and streams its state and receive-rate reports through `send`;
 * never sends again a state the server rejected.
 */
export declare class PredictorManager<E = PointerSample> {
  constructor(options: PredictorManagerOptions<E>);
  /** The last measured receive rate, bytes per second. */
  readonly bytesPerSecond: number;
  /** States sent since creation. */
  readonly statesSent: number;
  /** Starts the periodic messages, as for a new session. */
  start(): void;
  /** Stops the periodic messages. */
  stop(): void;
  /** Feeds one event to the predictor; an exception it throws is logged and the event skipped. */
  onEvent(event: E): void;
  /** Counts received frame bytes for the next rate report. */
  onBytes(n: number): void;
  /** Sends the predictor's current state now, unless it is the rejected one. */
  sendState(): void;
  /**
   * A request missed the cache: sends a state now, or, if one went out less than
   * `missStateIntervalMs` ago, when that window ends (unless a state goes out meanwhile).
   */
  onMiss(): void;
  /**
   * Sends a receive-rate report for the interval since the last one, with the `nextSeq` option's
   * value at this moment, if any.
   */
  sendRate(): void;
  /** Marks the last state sent as rejected (never sent again) and returns it, if any. */
  rejectLastState(): unknown;
}

/** Options of a {@link ReconnectBackoff}. */
export interface ReconnectBackoffOptions {
  /** Base of the first delay, integer >= 1; default 100 ms. */
  initialMs?: number;
  /** Cap of the base, integer >= initialMs; default 10000 ms. */
  maxMs?: number;
  /** A session welcomed for at least this long resets the back-off; default 5000 ms. */
  healthyAfterMs?: number;
  /** Jitter source returning numbers in [0, 1); default `Math.random`. */
  random?: () => number;
}

/**
 * Reconnect delays: attempt `k` waits a uniform random delay in `[b/2, b]`,
 * `b = min(maxMs, initialMs * 2^k)`; only a session that stayed up `healthyAfterMs` resets `k`.
 */
export declare class ReconnectBackoff {
  /** @throws {RangeError|TypeError} naming the bad option */
  constructor(options?: ReconnectBackoffOptions);
  /** The attempt number `k` of the next delay. */
  readonly attempt: number;
  /**
   * The delay before the next attempt, in whole ms, and a step up for the one after.
   * @param welcomedForMs how long the ended session was welcomed, negative if never (a failed attempt)
   */
  nextDelayMs(welcomedForMs: number): number;
  /** The un-jittered base of attempt `k`. */
  baseMs(k: number): number;
}

/** The server's `welcome` message (protocol section 3.2). */
export interface Welcome {
  readonly type: 'welcome';
  readonly protocol: 1;
  /** The session id, as in the server's logs. */
  readonly session: string;
  readonly application: string;
  /** Payload bytes of every block frame. */
  readonly blockSize: number;
  /** n: request ids are 0..n-1. */
  readonly requestCount: number;
  /** C, echoing the hello. */
  readonly cacheBlocks: number;
  /** The predictor's horizons, ms. */
  readonly horizons: readonly number[];
  /** Sequence number of the session's first block frame. */
  readonly firstSeq: number;
  readonly blockCounts: {
    readonly default: number;
    readonly exceptions: readonly (readonly [number, number])[];
    readonly complete: boolean;
    /**
     * Optional `[firstId, lastId]` ranges (inclusive) of requests whose count above is only an
     * upper bound, told lazily by the server; their block frames carry the exact count, which the
     * client uses.
     */
    readonly lazy?: readonly (readonly [number, number])[];
  };
  /** Optional protocol features, e.g. "scope", "resume". */
  readonly features?: readonly string[];
  /** A token with which the client may resume this session later. */
  readonly resumeToken?: string;
  /** Present if the hello asked to resume: whether the session was resumed. */
  readonly resumed?: boolean;
  /** Why a resume was refused (with `resumed` false), e.g. "expired". */
  readonly resumeRefused?: string;
}

/** A server `error` message, or a protocol error this client found. */
export interface ServerError {
  readonly code: string;
  readonly message: string;
}

/** What `onClose` is told each time a connection ends. */
export interface CloseInfo {
  /** The WebSocket close code (1006 for a connection that failed or was cut). */
  readonly code: number;
  readonly reason: string;
  /** The error that preceded the close on that connection, if any. */
  readonly error?: ServerError;
  /** Whether another attempt is scheduled. */
  readonly willReconnect: boolean;
  /** The delay before that attempt, ms, when `willReconnect`. */
  readonly delayMs?: number;
}

/** Options of {@link KhameleonClient.connect}. */
export interface KhameleonClientOptions<E = PointerSample> {
  /** `ws://host:port/path` or `wss://…` of the application. */
  url: string;
  /** The application's name, sent in the hello. */
  application: string;
  /** C, the ring size in blocks; default 2000. */
  cacheBlocks?: number;
  /** Authentication token sent in the hello. */
  token?: string;
  /** The client half of the predictor; default a {@link KalmanPredictor} over the welcome's horizons. */
  predictor?: ClientPredictor<E>;
  /** Utility reported in each response; default linear. */
  utility?: (fraction: number) => number;
  /** Periodic state interval; default 150 ms. */
  stateIntervalMs?: number;
  /** Least time between the last state and one sent because a request missed; default 20 ms. */
  missStateIntervalMs?: number;
  /** Receive-rate report interval; default 500 ms. */
  rateIntervalMs?: number;
  /** Re-establish a lost connection (a failed first connection is not retried); default true. */
  reconnect?: boolean;
  /** Base of the first reconnect delay; default 100 ms. */
  initialBackoffMs?: number;
  /** Cap of the reconnect delay's base; default 10000 ms. */
  maxBackoffMs?: number;
  /** A session that stayed up this long resets the back-off when it ends; default 5000 ms. */
  healthyAfterMs?: number;
  /** Jitter source of the reconnect delays, numbers in [0, 1); default `Math.random`. */
  random?: () => number;
  /** On a reconnect, ask the server to resume the session with the cache as it is; default true. */
  resume?: boolean;
  /** Every welcome, the first and each after a reconnect. */
  onConnected?: (welcome: Welcome) => void;
  /**
   * After the welcome of a reconnect that asked to resume: whether the cache was kept and the ring
   * continues at `welcome.firstSeq`; if not, `refusal` says why ("" if the server does not offer
   * resume) and {@link onCacheInvalidated} follows.
   */
  onResume?: (resumed: boolean, welcome: Welcome, refusal: string) => void;
  /** After a reconnect's welcome: the cache was emptied; the new ring starts at `firstSeq`. */
  onCacheInvalidated?: (firstSeq: number) => void;
  /** Every connection that ends, with whether and when the client tries again. */
  onClose?: (info: CloseInfo) => void;
  /** Every `error` message from the server. */
  onServerError?: (error: ServerError) => void;
  /** The server rejected `state` (`invalid_state`); it is never sent again. */
  onStateRejected?: (state: unknown, message: string) => void;
  /** The request ids whose meaning changed after a {@link KhameleonClient.scope}. */
  onRebind?: (requestIds: number[]) => void;
}

/**
 * Khameleon sessions over WebSockets: ring-buffer cache, cache manager, predictor manager, and
 * reconnects with {@link ReconnectBackoff} after a lost connection.
 */
export declare class KhameleonClient<E = PointerSample> {
  /**
   * Opens a session; resolves once the server's welcome arrives, rejects if the first connection
   * closes before it.
   * @throws {TypeError|RangeError} (as a rejection) naming a bad option
   */
  static connect<E = PointerSample>(options: KhameleonClientOptions<E>): Promise<KhameleonClient<E>>;
  private constructor(options: KhameleonClientOptions<E>);
  /** The welcome of the current session, or of the last one. */
  readonly welcome: Welcome | null;
  /** True once the client is over: closed by the application, or lost without reconnecting. */
  readonly closed: boolean;
  /** True while a session is welcomed and open. */
  readonly connected: boolean;
  /** Sessions welcomed after the first. */
  readonly reconnects: number;
  /** Whether a reconnect asks to resume the session, cache included. */
  readonly resume: boolean;
  /** The last error from the server or found in its messages, if any. */
  readonly lastError: ServerError | null;
  readonly cache: RingBufferCache;
  readonly manager: CacheManager;
  readonly backoff: ReconnectBackoff;
  /** Feeds a pointer position (in the server layout's coordinates) to the predictor. */
  pointer(x: number, y: number, timeMillis?: number): void;
  /**
   * Asks for `requestId`: the upcall gets its usable prefix now if cached, else when it arrives,
   * and again as it improves; registrations survive reconnects.
   * @throws {RangeError} if `requestId` is outside the welcome's range
   */
  register(requestId: number, upcall: (response: Response) => void): Registration;
  /**
   * Sends this client's request scope; the newest is sent again on each new session.
   * @throws {Error} if the welcome does not offer the "scope" feature
   */
  scope(scope: unknown): void;
  /** Metrics, the last measured receive rate and the number of reconnects. */
  metrics(): Metrics & { readonly bytesPerSecond: number; readonly reconnects: number };
  /** Leaves for good: says bye and cancels any pending reconnect. */
  close(): void;
}

/**
 * The length of the longest part of a JPEG prefix that a decoder renders once an EOI marker is
 * appended; 0 when nothing is renderable yet.
 */
export declare function jpegRenderableLength(bytes: Uint8Array): number;

/** A JPEG prefix cut back to its renderable part, EOI appended: ready for an `<img>` or canvas. */
export declare function jpegPrefixBlob(bytes: Uint8Array): Blob;
