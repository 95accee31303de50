// Khameleon browser client: protocol v1 (docs/protocol.md), plain ES module, no build step.
// Published as the npm package @khameleon/client (package.json beside this file, TypeScript
// declarations in khameleon.d.ts) and served by the khameleon-client jar at
// META-INF/resources/khameleon/khameleon.js; this file is the only copy of the source.
//
// What is here, bottom up:
//   decodeBlockFrame   - the binary block frame of protocol section 4, validated
//   RingBufferCache    - C slots, block with sequence number s lives in slot s mod C (FIFO)
//   CacheManager       - the application registers requests and gets upcalls as blocks arrive
//   KalmanPredictor    - constant-velocity Kalman filter of the pointer; its state is the JSON the
//                        server's Gaussian-over-grid predictor decodes
//   PredictorManager   - sends the predictor state every 150 ms and receive-rate reports (with the
//                        sequence number the client expects next)
//   ReconnectBackoff   - jittered exponential reconnect delays, the Java client's policy
//   KhameleonClient    - the WebSocket sessions tying them together, reconnecting when one is lost
//
// Threading: everything runs on the page's single event loop; upcalls are delivered as
// microtasks, never re-entrantly from inside register().

/** The protocol version this module speaks. */
export const PROTOCOL_VERSION = 1;

/** Block frame magic byte, ASCII "K". */
const MAGIC = 0x4b;
/** Bytes of a version 1 block frame header. */
const HEADER_LENGTH = 32;
/** Bytes of a header carrying a binding generation (flag bit 1). */
const GENERATION_HEADER_LENGTH = 36;
/** The welcome feature of applications whose request ids mean different content per session. */
export const FEATURE_SCOPE = 'scope';
/** The feature of sessions that can be resumed on another connection, cache included (protocol section 8). */
export const FEATURE_RESUME = 'resume';
/** Manifest runs per message when resuming: at most about 32 KiB of JSON, inside a server's default frame limit. */
export const RUNS_PER_MESSAGE = 1024;
/** Most manifest messages one resume sends; a longer manifest is not sent (the session starts afresh). */
const MAX_RESUME_MESSAGES = 64;

/**
 * A protocol violation by the peer; `code` is one of the protocol's error codes.
 */
export class ProtocolError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = 'ProtocolError';
    /** @type {string} */
    this.code = code;
  }
}

/**
 * One decoded block frame.
 * @typedef {object} BlockFrame
 * @property {number} seq          sequence number (>= 0)
 * @property {number} requestId    request id
 * @property {number} index        block index within its response
 * @property {number} count        number of blocks of the response
 * @property {number} padding      trailing payload bytes that are not part of the response
 * @property {number} generation   the binding generation of its request the block answers (0: the default meaning)
 * @property {Uint8Array} payload  the whole payload, padding included (a view, not a copy)
 * @property {number} frameBytes   bytes of the frame, header included
 */

/**
 * Decodes and validates one binary block frame (protocol section 4).
 *
 * @param {ArrayBuffer} buffer the frame
 * @returns {BlockFrame}
 * @throws {ProtocolError} `invalid_message` naming the offending field
 */
export function decodeBlockFrame(buffer) {
  if (!(buffer instanceof ArrayBuffer)) {
    throw new ProtocolError('invalid_message', 'block frame must be an ArrayBuffer');
  }
  if (buffer.byteLength < HEADER_LENGTH) {
    throw new ProtocolError('invalid_message', `block frame of ${buffer.byteLength} bytes is shorter than its header`);
  }
  const v = new DataView(buffer);
  const magic = v.getUint8(0);
  if (magic !== MAGIC) {
    throw new ProtocolError('invalid_message', `magic must be 0x4B, was 0x${magic.toString(16)}`);
  }
  const version = v.getUint8(1);
  if (version !== PROTOCOL_VERSION) {
    throw new ProtocolError('invalid_message', `version must be ${PROTOCOL_VERSION}, was ${version}`);
  }
  const flags = v.getUint8(2);
  const headerLength = v.getUint8(3);
  if (headerLength < HEADER_LENGTH || headerLength > buffer.byteLength) {
    throw new ProtocolError('invalid_message', `headerLength must be in [32, ${buffer.byteLength}], was ${headerLength}`);
  }
  const seqBig = v.getBigInt64(4);
  if (seqBig < 0n || seqBig > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ProtocolError('invalid_message', `seq must be >= 0 and exact in a double, was ${seqBig}`);
  }
  const requestId = v.getInt32(12);
  const index = v.getInt32(16);
  const count = v.getInt32(20);
  const payloadLength = v.getInt32(24);
  const padding = v.getInt32(28);
  if (requestId < 0) {
    throw new ProtocolError('invalid_message', `requestId must be >= 0, was ${requestId}`);
  }
  if (count < 1) {
    throw new ProtocolError('invalid_message', `blockCount must be >= 1, was ${count}`);
  }
  if (index < 0 || index >= count) {
    throw new ProtocolError('invalid_message', `blockIndex must be in [0, ${count}), was ${index}`);
  }
  if (payloadLength !== buffer.byteLength - headerLength) {
    throw new ProtocolError('invalid_message',
      `payloadLength must equal the frame's ${buffer.byteLength - headerLength} payload bytes, was ${payloadLength}`);
  }
  if (padding < 0 || padding > payloadLength) {
    throw new ProtocolError('invalid_message', `padding must be in [0, ${payloadLength}], was ${padding}`);
  }
  if (((flags & 1) === 1) !== (index === count - 1)) {
    throw new ProtocolError('invalid_message', `flags bit 0 must be set exactly on the last block, was ${flags & 1} on block ${index}/${count}`);
  }
  let generation = 0;
  if ((flags & 2) === 2) {
    if (headerLength < GENERATION_HEADER_LENGTH) {
      throw new ProtocolError('invalid_message', `a frame with the generation flag needs a header of at least 36 bytes, had ${headerLength}`);
    }
    generation = v.getInt32(HEADER_LENGTH);
    if (generation < 0) {
      throw new ProtocolError('invalid_message', `generation must be >= 0, was ${generation}`);
    }
  }
  return {
    seq: Number(seqBig),
    requestId,
    index,
    count,
    padding,
    generation,
    payload: new Uint8Array(buffer, headerLength, payloadLength),
    frameBytes: buffer.byteLength,
  };
}

/**
 * The client's FIFO ring of `capacity` blocks: the block with sequence number `s` goes to slot
 * `s mod capacity`, evicting whatever was there. Deterministic, so the server can simulate it.
 * Lookups by request are O(blocks of that request) through an index.
 */
export class RingBufferCache {
  /** @param {number} capacity number of slots, C >= 1 */
  constructor(capacity) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`capacity must be an integer >= 1, was ${capacity}`);
    }
    /** @type {number} */
    this.capacity = capacity;
    /** @type {(BlockFrame|undefined)[]} */
    this.slots = new Array(capacity);
    /** request id -> (block index -> frame) of the blocks present. @type {Map<number, Map<number, BlockFrame>>} */
    this.index = new Map();
    /** @type {number} blocks stored since creation */
    this.stored = 0;
    /** @type {number} blocks overwritten since creation */
    this.evicted = 0;
  }

  /**
   * Stores `frame` in slot `frame.seq mod capacity`.
   * @param {BlockFrame} frame
   * @returns {BlockFrame|undefined} the block it evicted, if any
   */
  put(frame) {
    const slot = frame.seq % this.capacity;
    const old = this._evict(slot);
    this.slots[slot] = frame;
    let blocks = this.index.get(frame.requestId);
    if (blocks === undefined) {
      blocks = new Map();
      this.index.set(frame.requestId, blocks);
    }
    blocks.set(frame.index, frame);
    this.stored++;
    return old;
  }

  /**
   * The longest run of blocks 0..j of `requestId` present, in order (empty if block 0 is absent).
   * @param {number} requestId
   * @returns {BlockFrame[]}
   */
  prefix(requestId) {
    const blocks = this.index.get(requestId);
    const out = [];
    if (blocks === undefined) {
      return out;
    }
    for (let i = 0; ; i++) {
      const b = blocks.get(i);
      if (b === undefined) {
        return out;
      }
      out.push(b);
    }
  }

  /**
   * Takes the frame with sequence number `seq` without storing it (a block the client refuses):
   * its slot is emptied, as the server believes it was overwritten.
   * @param {number} seq
   */
  skip(seq) {
    this._evict(seq % this.capacity);
  }

  /**
   * Drops every block of `requestId` (its meaning changed).
   * @param {number} requestId
   * @returns {number} how many blocks were dropped
   */
  invalidate(requestId) {
    const blocks = this.index.get(requestId);
    if (blocks === undefined) {
      return 0;
    }
    this.index.delete(requestId);
    let dropped = 0;
    for (let slot = 0; slot < this.capacity && dropped < blocks.size; slot++) {
      const b = this.slots[slot];
      if (b !== undefined && blocks.get(b.index) === b) {
        this.slots[slot] = undefined;
        dropped++;
      }
    }
    return dropped;
  }

  /** Empties `slot`, unindexing its block; returns that block, if any. */
  _evict(slot) {
    const old = this.slots[slot];
    if (old !== undefined) {
      const blocks = this.index.get(old.requestId);
      // The same block may have been pushed again into a newer slot: only unindex this copy.
      if (blocks !== undefined && blocks.get(old.index) === old) {
        blocks.delete(old.index);
        if (blocks.size === 0) {
          this.index.delete(old.requestId);
        }
      }
      this.slots[slot] = undefined;
      this.evicted++;
    }
    return old;
  }

  /** @param {number} requestId @returns {number} how many blocks of `requestId` are present */
  presentCount(requestId) {
    const blocks = this.index.get(requestId);
    return blocks === undefined ? 0 : blocks.size;
  }

  /**
   * What the ring holds, for resuming a session (protocol section 8): the `min(nextSeq, C)` slots
   * before `nextSeq`, oldest first, as `[requestId, firstBlock, count]` runs of consecutive blocks
   * of one request (`[-1, 0, count]` for empty slots).
   * @param {number} nextSeq the sequence number the client expects next
   * @returns {number[][]}
   */
  manifest(nextSeq) {
    const runs = [];
    let last = null;
    for (let seq = Math.max(0, nextSeq - this.capacity); seq < nextSeq; seq++) {
      const b = this.slots[seq % this.capacity];
      const present = b !== undefined && b.seq === seq;
      const id = present ? b.requestId : -1;
      const index = present ? b.index : 0;
      if (last !== null && last[0] === id && (id === -1 || last[1] + last[2] === index)) {
        last[2]++;
      } else {
        last = [id, index, 1];
        runs.push(last);
      }
    }
    return runs;
  }

  /**
   * Empties every slot, as for a new session: the server of the next session knows nothing of
   * these blocks. The counters `stored` and `evicted` keep counting.
   */
  clear() {
    this.slots.fill(undefined);
    this.index.clear();
  }
}

/**
 * Concatenates the content (payload minus padding) of `blocks`.
 * @param {BlockFrame[]} blocks
 * @returns {Uint8Array}
 */
export function concatContent(blocks) {
  let length = 0;
  for (const b of blocks) {
    length += b.payload.length - b.padding;
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const b of blocks) {
    out.set(b.payload.subarray(0, b.payload.length - b.padding), at);
    at += b.payload.length - b.padding;
  }
  return out;
}

/**
 * What an upcall receives: the usable prefix of a response.
 * @typedef {object} Response
 * @property {number} requestId
 * @property {number} blocks       blocks in the usable prefix (>= 1)
 * @property {number} blockCount   blocks of the whole response
 * @property {Uint8Array} bytes    the prefix's content, padding removed
 * @property {number} utility      U(blocks / blockCount)
 * @property {boolean} first       whether this is the registration's first upcall
 * @property {boolean} hit         whether a block was already cached when the request was registered
 * @property {number} latencyMs    registration to first upcall
 */

/**
 * @typedef {object} Registration
 * @property {number} requestId
 * @property {() => void} cancel   stop further upcalls for this registration
 * @property {boolean} active
 */

/**
 * A rolling summary of client metrics, as the paper defines them.
 * @typedef {object} Metrics
 * @property {number} registrations  requests registered
 * @property {number} hits           registrations that found >= 1 block cached
 * @property {number} hitRate        hits / registrations
 * @property {number} preempted      registrations dropped before any upcall
 * @property {number} answered       registrations that got a first upcall
 * @property {number} meanLatencyMs  mean registration-to-first-upcall latency
 * @property {number} p95LatencyMs   95th percentile of the last latencies
 * @property {number} meanUtility    mean utility at first upcall
 * @property {number} blocksReceived blocks received
 * @property {number} blocksUsed     distinct received blocks that were part of an upcall
 * @property {number} blocksStale    blocks refused because they answered an old binding of their request
 * @property {number[]} recentLatenciesMs the last latencies, oldest first
 */

/**
 * Hands responses to the application: `register(id, upcall)` calls `upcall` at once if at least
 * one block of `id` is cached, otherwise when the first block arrives, and again each time more
 * blocks extend the usable prefix, until the response is complete or the registration is
 * cancelled. A newer registration preempts older ones that have had no upcall yet.
 */
export class CacheManager {
  /**
   * @param {RingBufferCache} cache
   * @param {{utility?: (fraction: number) => number, now?: () => number, latencyWindow?: number}} [options]
   *   `utility` maps the fraction of blocks present to quality (default linear); `now` is a
   *   millisecond clock (default performance.now)
   */
  constructor(cache, options = {}) {
    this.cache = cache;
    this.utility = options.utility ?? ((f) => f);
    this.now = options.now ?? (() => performance.now());
    this.latencyWindow = options.latencyWindow ?? 200;
    /** request id -> live registrations of it. @type {Map<number, Set<object>>} */
    this.live = new Map();
    /** registrations that have had no upcall yet, oldest first. @type {Set<object>} */
    this.waiting = new Set();
    this.counters = { registrations: 0, hits: 0, preempted: 0, answered: 0, latencySum: 0, utilitySum: 0, blocksReceived: 0, blocksUsed: 0, blocksStale: 0 };
    /** request id -> generation of its current binding, for ids not at generation 0. @type {Map<number, number>} */
    this.generations = new Map();
    /** @type {number[]} */
    this.latencies = [];
    /** @type {WeakSet<BlockFrame>} */
    this.used = new WeakSet();
  }

  /**
   * Registers interest in `requestId`.
   * @param {number} requestId
   * @param {(response: Response) => void} upcall   exceptions it throws are logged and contained
   * @returns {Registration}
   */
  register(requestId, upcall) {
    for (const old of this.waiting) {
      this._drop(old);
      this.counters.preempted++;
    }
    this.waiting.clear();
    const reg = {
      requestId,
      upcall,
      registeredAt: this.now(),
      delivered: 0,
      first: true,
      hit: this.cache.prefix(requestId).length > 0,
      active: true,
      cancel: () => this._drop(reg),
    };
    this.counters.registrations++;
    if (reg.hit) {
      this.counters.hits++;
    }
    let set = this.live.get(requestId);
    if (set === undefined) {
      set = new Set();
      this.live.set(requestId, set);
    }
    set.add(reg);
    this.waiting.add(reg);
    if (reg.hit) {
      queueMicrotask(() => this._deliver(reg));
    }
    return reg;
  }

  /**
   * The generation of `requestId`'s current binding (0: its default meaning).
   * @param {number} requestId
   * @returns {number}
   */
  generation(requestId) {
    return this.generations.get(requestId) ?? 0;
  }

  /**
   * Whether a received frame answers its request's current binding; a frame that does not is
   * counted as stale and must not be stored.
   * @param {BlockFrame} frame
   * @returns {boolean}
   */
  accepts(frame) {
    if ((frame.generation ?? 0) === this.generation(frame.requestId)) {
      return true;
    }
    this.counters.blocksStale++;
    return false;
  }

  /**
   * Request `requestIds[k]` now means other content, answered by blocks of generation
   * `generations[k]`: drops its cached blocks, refuses other generations from now on, and makes
   * its live registrations start over with the new content.
   * @param {number[]} requestIds
   * @param {number[]} generations
   */
  rebind(requestIds, generations) {
    requestIds.forEach((id, k) => {
      if (generations[k] === 0) {
        this.generations.delete(id);
      } else {
        this.generations.set(id, generations[k]);
      }
      this.cache.invalidate(id);
      for (const reg of this.live.get(id) ?? []) {
        reg.delivered = 0;
      }
    });
  }

  /**
   * A new session begins: empties the cache and forgets every binding (a new session starts with
   * every request at its default meaning). Registrations stay: one already answered gets its next
   * upcall once the new session's prefix is longer than what it has delivered.
   */
  reset() {
    this.cache.clear();
    this.generations.clear();
  }

  /**
   * Called by the client for every block stored in the cache.
   * @param {BlockFrame} frame
   */
  onBlock(frame) {
    this.counters.blocksReceived++;
    const set = this.live.get(frame.requestId);
    if (set !== undefined) {
      for (const reg of [...set]) {
        this._deliver(reg);
      }
    }
  }

  /** @returns {Metrics} */
  metrics() {
    const c = this.counters;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      registrations: c.registrations,
      hits: c.hits,
      hitRate: c.registrations === 0 ? 0 : c.hits / c.registrations,
      preempted: c.preempted,
      answered: c.answered,
      meanLatencyMs: c.answered === 0 ? 0 : c.latencySum / c.answered,
      p95LatencyMs: sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(0.95 * sorted.length))],
      meanUtility: c.answered === 0 ? 0 : c.utilitySum / c.answered,
      blocksReceived: c.blocksReceived,
      blocksUsed: c.blocksUsed,
      blocksStale: c.blocksStale,
      recentLatenciesMs: [...this.latencies],
    };
  }

  _deliver(reg) {
    if (!reg.active) {
      return;
    }
    const prefix = this.cache.prefix(reg.requestId);
    if (prefix.length <= reg.delivered) {
      return;
    }
    const count = prefix[0].count;
    const response = {
      requestId: reg.requestId,
      blocks: prefix.length,
      blockCount: count,
      bytes: concatContent(prefix),
      utility: this.utility(prefix.length / count),
      first: reg.first,
      hit: reg.hit,
      latencyMs: this.now() - reg.registeredAt,
    };
    for (const b of prefix) {
      if (!this.used.has(b)) {
        this.used.add(b);
        this.counters.blocksUsed++;
      }
    }
    if (reg.first) {
      reg.first = false;
      this.waiting.delete(reg);
      this.counters.answered++;
      this.counters.latencySum += response.latencyMs;
      this.counters.utilitySum += response.utility;
      this.latencies.push(response.latencyMs);
      if (this.latencies.length > this.latencyWindow) {
        this.latencies.shift();
      }
    }
    reg.delivered = prefix.length;
    if (prefix.length >= count) {
      this._drop(reg);
    }
    try {
      reg.upcall(response);
    } catch (e) {
      console.error('khameleon: upcall for request', reg.requestId, 'threw', e);
    }
  }

  _drop(reg) {
    reg.active = false;
    this.waiting.delete(reg);
    const set = this.live.get(reg.requestId);
    if (set !== undefined) {
      set.delete(reg);
      if (set.size === 0) {
        this.live.delete(reg.requestId);
      }
    }
  }
}

/**
 * A pointer event, in the coordinate system of the server's layout.
 * @typedef {object} PointerSample
 * @property {number} x
 * @property {number} y
 * @property {number} timeMillis
 */

/**
 * A constant-velocity Kalman filter of the pointer position, the browser twin of the Java
 * `dev.khameleon.client.KalmanPredictor` (same model, same defaults, same state). Its state,
 * sent upstream, is the JSON the core `PointerForecast` defines:
 * `{"x", "y", "horizons": [ms...], "mean": [[x, y]...], "cov": [[varX, covXY, varY]...]}`,
 * or `{}` before the first event. Pure computation: no timers.
 *
 * Model per axis (the axes are independent): position and velocity driven by white noise of
 * spectral density `processNoise` (px^2/s^3, default 3e4), the velocity relaxing towards 0 with
 * time constant `velocityDecayMillis` (default 150; 0 for a pure constant-velocity model, since
 * pointer strokes stop and undamped extrapolation overshoots); position measured with variance
 * `measurementNoise` (px^2, default 4). Deterministic start: the first event sets the position,
 * velocity 0 with standard deviation `initialVelocitySigma` (px/s, default 1000). A gap longer
 * than `resetAfterMillis` (1000) starts afresh; an event at the same instant as the previous
 * one supersedes it; when the pointer has not moved for two typical intervals between events (at least
 * 30 ms, at most `idleMillis`, 250) the pointer is at rest and the forecast keeps it where it
 * is. Forecasts are anchored on the last observed position, which is also the state's `x, y`.
 * A moving pointer's forecast is spread along its predicted displacement `D` by a standard
 * deviation of `alongTrackSpread * |D|` (default 0.5; 0 for the filter's round covariance).
 */
export class KalmanPredictor {
  /**
   * @param {{horizons?: number[], processNoise?: number, measurementNoise?: number,
   *          initialVelocitySigma?: number, resetAfterMillis?: number, idleMillis?: number,
   *          velocityDecayMillis?: number, alongTrackSpread?: number}} [options]
   */
  constructor(options = {}) {
    this.horizons = options.horizons ?? [50, 150, 250, 500];
    this.q = options.processNoise ?? 3e4;
    this.r = options.measurementNoise ?? 4;
    this.velocitySigma = options.initialVelocitySigma ?? 1000;
    this.resetAfterMillis = options.resetAfterMillis ?? 1000;
    this.idleMillis = options.idleMillis ?? 250;
    const decayMillis = options.velocityDecayMillis ?? 150;
    if (!(Number.isFinite(decayMillis) && decayMillis >= 0)) {
      throw new RangeError(`velocityDecayMillis must be finite and >= 0, was ${decayMillis}`);
    }
    /** standard deviation along the predicted displacement, as a share of its length */
    this.alongTrackSpread = options.alongTrackSpread ?? 0.5;
    if (!(Number.isFinite(this.alongTrackSpread) && this.alongTrackSpread >= 0)) {
      throw new RangeError(`alongTrackSpread must be finite and >= 0, was ${this.alongTrackSpread}`);
    }
    /** velocity decay time constant in seconds; 0 for a pure constant-velocity model */
    this.tau = decayMillis / 1000;
    for (let j = 0; j < this.horizons.length; j++) {
      if (!Number.isInteger(this.horizons[j]) || this.horizons[j] < 0 || (j > 0 && this.horizons[j] <= this.horizons[j - 1])) {
        throw new RangeError(`horizons must be non-negative integers, strictly increasing: ${this.horizons}`);
      }
    }
    for (const [name, value] of [['processNoise', this.q], ['measurementNoise', this.r], ['initialVelocitySigma', this.velocitySigma]]) {
      if (!(Number.isFinite(value) && value > 0)) {
        throw new RangeError(`${name} must be finite and > 0, was ${value}`);
      }
    }
    /** per axis: mean [position, velocity] and covariance [pp, pv, vv]; null before the first event */
    this.ax = null;
    this.ay = null;
    /** the prior of the last event's instant, to redo an update superseded by a same-time event */
    this.prior = null;
    this.t = 0;
    /** the last observed position, which the filtered mean may trail */
    this.lastX = 0;
    this.lastY = 0;
    /** time of the last event that moved the pointer (a repeat of the same position does not) */
    this.lastMoveMillis = 0;
    /** smoothed interval between events of a moving pointer, ms; NaN until measured */
    this.gapMillis = NaN;
  }

  /** @param {PointerSample} e */
  onEvent(e) {
    if (!Number.isFinite(e.x) || !Number.isFinite(e.y) || !Number.isFinite(e.timeMillis)) {
      return; // a broken event must not poison the filter
    }
    if (this.ax === null || e.x !== this.lastX || e.y !== this.lastY) {
      this.lastMoveMillis = e.timeMillis;
    }
    this.lastX = e.x;
    this.lastY = e.y;
    if (this.ax === null || e.timeMillis - this.t > this.resetAfterMillis) {
      const v = this.velocitySigma * this.velocitySigma;
      // Prior: position unknown; after the first measurement its variance is r.
      this.prior = [{ m: [e.x, 0], P: [1e12, 0, v] }, { m: [e.y, 0], P: [1e12, 0, v] }];
      this.ax = { m: [e.x, 0], P: [this.r, 0, v] };
      this.ay = { m: [e.y, 0], P: [this.r, 0, v] };
      this.t = e.timeMillis;
      return;
    }
    if (e.timeMillis > this.t) {
      const gap = e.timeMillis - this.t;
      if (gap <= this.idleMillis) {
        // only intervals of a moving pointer: a pause is not the event rate
        this.gapMillis = Number.isNaN(this.gapMillis) ? gap : this.gapMillis + 0.1 * (gap - this.gapMillis);
      }
      const dt = gap / 1000;
      this.prior = [this._predict(this.ax, dt), this._predict(this.ay, dt)];
      this.t = e.timeMillis;
    }
    this.ax = this._update(this.prior[0], e.x);
    this.ay = this._update(this.prior[1], e.y);
  }

  /**
   * The forecast at each horizon from `nowMillis`, as JSON for a `state` message.
   * @param {number} nowMillis
   * @returns {object}
   */
  state(nowMillis) {
    if (this.ax === null) {
      return {};
    }
    // Rest is measured from the last movement, not the last event: a pointer that is polled
    // (or re-reported on clicks) keeps sending events at one position.
    const resting = nowMillis - this.lastMoveMillis > this.restAfterMillis();
    const elapsed = Math.max(0, nowMillis - this.t) / 1000;
    // The filtered mean trails a pointer that just stopped: forecast the filter's predicted
    // displacement from the last observed position.
    const offsetX = this.lastX - this.ax.m[0];
    const offsetY = this.lastY - this.ay.m[0];
    const mean = [];
    const cov = [];
    for (const h of this.horizons) {
      const px = resting ? this.ax : this._predict(this.ax, elapsed + h / 1000);
      const py = resting ? this.ay : this._predict(this.ay, elapsed + h / 1000);
      mean.push([px.m[0] + offsetX, py.m[0] + offsetY]);
      // Where a stroke stops is far less certain than which way it goes: spread the forecast
      // along its predicted displacement D by alongTrackSpread * |D| (cov += k^2 D D^T).
      const dx = px.m[0] - this.ax.m[0];
      const dy = py.m[0] - this.ay.m[0];
      const k2 = this.alongTrackSpread * this.alongTrackSpread;
      cov.push([px.P[0] + k2 * dx * dx, k2 * dx * dy, py.P[0] + k2 * dy * dy]);
    }
    const state = { x: this.lastX, y: this.lastY, horizons: [...this.horizons], mean, cov };
    if (resting) {
      // How long the pointer has rested lets the server fade its heavy tail, so a picture the
      // pointer stays on gets the link to itself; an integer of ms, capped at 5 s so that a
      // longer rest sends an unchanged state, which is not resent (as the Java client does).
      state.rest = Math.min(5000, Math.floor(nowMillis - this.lastMoveMillis));
    }
    return state;
  }

  /**
   * How long without a movement means the pointer is at rest: two typical intervals between
   * events (smoothed), at least 30 ms and at most `idleMillis`.
   * @returns {number}
   */
  restAfterMillis() {
    if (Number.isNaN(this.gapMillis)) {
      return this.idleMillis;
    }
    return Math.min(this.idleMillis, Math.max(30, Math.round(2 * this.gapMillis)));
  }

  /**
   * One axis: mean <- F mean, cov <- F cov F^T + Q for a step of `dt` seconds, exactly
   * discretised; with a velocity decay time constant tau > 0 the velocity is an
   * Ornstein-Uhlenbeck process (it relaxes towards 0), else white-noise acceleration.
   */
  _predict(a, dt) {
    const [p, v] = a.m;
    const [pp, pv, vv] = a.P;
    const q = this.q;
    const tau = this.tau;
    let f01;
    let f11;
    let qpp;
    let qpv;
    let qvv;
    if (tau > 0) {
      const decay = Math.exp(-dt / tau);
      f01 = tau * (1 - decay);
      f11 = decay;
      qpp = q * tau * tau * tau / 2 * (2 * dt / tau - 3 + 4 * decay - decay * decay);
      qpv = q * tau * tau / 2 * (1 - decay) * (1 - decay);
      qvv = q * tau / 2 * (1 - decay * decay);
    } else {
      f01 = dt;
      f11 = 1;
      qpp = q * dt * dt * dt / 3;
      qpv = q * dt * dt / 2;
      qvv = q * dt;
    }
    return {
      m: [p + f01 * v, f11 * v],
      P: [
        pp + 2 * f01 * pv + f01 * f01 * vv + qpp,
        f11 * pv + f01 * f11 * vv + qpv,
        f11 * f11 * vv + qvv,
      ],
    };
  }

  /** One axis: measurement update with position `z`, Joseph form (keeps P positive semi-definite). */
  _update(a, z) {
    const [pp, pv, vv] = a.P;
    const r = this.r;
    const s = pp + r;
    const k0 = pp / s;
    const k1 = pv / s;
    const y = z - a.m[0];
    // (I - K H) P (I - K H)^T + K r K^T with H = [1, 0].
    const a0 = 1 - k0;
    return {
      m: [a.m[0] + k0 * y, a.m[1] + k1 * y],
      P: [
        a0 * a0 * pp + k0 * k0 * r,
        a0 * (pv - k1 * pp) + k0 * k1 * r,
        vv - 2 * k1 * pv + k1 * k1 * pp + k1 * k1 * r,
      ],
    };
  }
}

/**
 * Feeds pointer events to a predictor and streams its state (every `stateIntervalMs`, default
 * 150) and receive-rate reports (every `rateIntervalMs`, default 500) through `send`. A request
 * that misses the cache sends a fresh state at once ({@link PredictorManager#onMiss}), at most
 * one per `missStateIntervalMs` (default 20; a miss inside that window sends at its end). A state the server rejected
 * ({@link PredictorManager#rejectLastState}) is never sent again: it would be rejected again.
 * A rate report carries `nextSeq`, the sequence number the client expects next, when the
 * `nextSeq` option gives one.
 */
export class PredictorManager {
  /**
   * @param {{predictor: {onEvent: (e: PointerSample) => void, state: (now: number) => object},
   *          send: (message: object) => void, stateIntervalMs?: number, rateIntervalMs?: number,
   *          missStateIntervalMs?: number, clock?: () => number,
   *          nextSeq?: () => (number|undefined)}} options  `clock` gives epoch milliseconds
   *          (default Date.now); `nextSeq` gives, when a rate report is built, the sequence number
   *          the client expects next (one past the last block frame it received or skipped), or
   *          undefined (the default) to leave it out of the report
   */
  constructor(options) {
    this.predictor = options.predictor;
    this.send = options.send;
    /** gives the `nextSeq` of each rate report; undefined or a value it returns outside [0, 2^53 - 1] leaves the field out */
    this.nextSeq = options.nextSeq;
    this.stateIntervalMs = options.stateIntervalMs ?? 150;
    this.missStateIntervalMs = options.missStateIntervalMs ?? 20;
    /** when the last state went out, on `clock`; -Infinity before the first */
    this.lastStateAt = -Infinity;
    this.rateIntervalMs = options.rateIntervalMs ?? 500;
    this.clock = options.clock ?? (() => Date.now());
    this.bytes = 0;
    this.rateSince = this.clock();
    /** the last measured receive rate, bytes per second */
    this.bytesPerSecond = 0;
    this.timers = [];
    this.statesSent = 0;
    /** the state last sent on this session; undefined before the first */
    this.lastState = undefined;
    /** JSON of the state the server rejected last, or null */
    this.rejectedJson = null;
    /** the timer of a miss's state deferred to the end of its window, or null */
    this.missTimer = null;
  }

  /** Starts the periodic messages, as for a new session: the next rate report covers only it. */
  start() {
    this.stop();
    this.rateSince = this.clock();
    this.bytes = 0;
    this.lastState = undefined;
    this.timers.push(setInterval(() => this.sendState(), this.stateIntervalMs));
    this.timers.push(setInterval(() => this.sendRate(), this.rateIntervalMs));
  }

  /** Stops the periodic messages. */
  stop() {
    for (const t of this.timers) {
      clearInterval(t);
    }
    this.timers = [];
    if (this.missTimer !== null) {
      clearTimeout(this.missTimer);
      this.missTimer = null;
    }
  }

  /** Feeds one event to the predictor; an exception it throws is logged and the event skipped. @param {PointerSample} e */
  onEvent(e) {
    try {
      this.predictor.onEvent(e);
    } catch (err) {
      console.error('khameleon: predictor.onEvent threw; event skipped', err);
    }
  }

  /** Counts received frame bytes for the next rate report. @param {number} n */
  onBytes(n) {
    this.bytes += n;
  }

  /**
   * Sends the predictor's current state now, unless it is the state the server rejected last. An
   * exception from the predictor is logged and the state skipped.
   */
  sendState() {
    const now = Math.max(0, Math.round(this.clock()));
    let state;
    try {
      state = this.predictor.state(now);
    } catch (e) {
      console.error('khameleon: predictor.state threw; state skipped', e);
      return;
    }
    if (this.rejectedJson !== null && JSON.stringify(state) === this.rejectedJson) {
      return;
    }
    this.send({ type: 'state', time: now, state });
    this.lastState = state;
    this.lastStateAt = now;
    this.statesSent++;
  }

  /**
   * The server rejected the last state sent on this session (`invalid_state`): remembers it so
   * that it is never sent again, and returns it (undefined if no state was sent).
   * @returns {object|undefined}
   */
  rejectLastState() {
    if (this.lastState === undefined) {
      return undefined;
    }
    this.rejectedJson = JSON.stringify(this.lastState);
    return this.lastState;
  }

  /**
   * A request missed the cache: sends a fresh state now, so the miss costs one round trip instead
   * of waiting for the next periodic state. If one went out less than `missStateIntervalMs` ago,
   * the state is sent when that window ends instead (one deferred send however many misses), unless
   * a state goes out meanwhile.
   */
  onMiss() {
    const wait = this.lastStateAt + this.missStateIntervalMs - Math.round(this.clock());
    if (wait <= 0) {
      this.sendState();
      return;
    }
    if (this.missTimer === null) {
      const sentBefore = this.statesSent;
      this.missTimer = setTimeout(() => {
        this.missTimer = null;
        if (this.statesSent === sentBefore) {
          this.sendState();
        }
      }, wait);
    }
  }

  /**
   * Sends a receive-rate report for the interval since the last one, with the `nextSeq` the
   * `nextSeq` option gives at this moment (left out if it gives none, or not an integer in
   * [0, 2^53 - 1]).
   */
  sendRate() {
    const now = this.clock();
    const seconds = (now - this.rateSince) / 1000;
    if (seconds <= 0) {
      return;
    }
    this.bytesPerSecond = this.bytes / seconds;
    const report = { type: 'rate', time: Math.max(0, Math.round(now)), bytesPerSecond: this.bytesPerSecond };
    const nextSeq = this.nextSeq?.();
    if (Number.isSafeInteger(nextSeq) && nextSeq >= 0) {
      report.nextSeq = nextSeq;
    }
    this.send(report);
    this.bytes = 0;
    this.rateSince = now;
  }
}

/**
 * The server's `welcome` message (protocol section 3.2).
 * @typedef {object} Welcome
 * @property {number} protocol
 * @property {string} session
 * @property {string} application
 * @property {number} blockSize
 * @property {number} requestCount
 * @property {number} cacheBlocks
 * @property {number[]} horizons
 * @property {number} firstSeq
 * @property {{default: number, exceptions: number[][], complete: boolean, lazy?: number[][]}} blockCounts
 *   `lazy`: optional inclusive id ranges whose counts are upper bounds; the block frames carry the
 *   exact count, which is what responses use
 * @property {string[]} [features]  optional protocol features, e.g. "scope"
 */

/**
 * The client's reconnect delays, the policy of the Java client: exponential, capped and
 * jittered, reset only by a session that stayed up for a while.
 *
 * Attempt `k` (0 for the first reconnect after a reset) waits a delay drawn uniformly from
 * `[b/2, b]` with `b = min(maxMs, initialMs * 2^k)`: below the cap a delay is never shorter than
 * the one before, and pages that lost the same server do not come back in step. A session that
 * was welcomed and stayed open for at least `healthyAfterMs` resets `k` to 0 when it ends; any
 * shorter session (refused, rejected for bad input, or cut) lets `k` grow, so a server that
 * accepts the connection and then closes it sees fewer and fewer attempts.
 */
export class ReconnectBackoff {
  /**
   * @param {{initialMs?: number, maxMs?: number, healthyAfterMs?: number, random?: () => number}} [options]
   *   `initialMs` (default 100) and `maxMs` (default 10000) bound the base delay, integers with
   *   1 <= initialMs <= maxMs; `healthyAfterMs` (default 5000, >= 0) is how long a session must
   *   stay welcomed to reset the back-off; `random` returns numbers in [0, 1) (default Math.random;
   *   pass a seeded one for reproducible delays)
   * @throws {RangeError|TypeError} naming the bad option
   */
  constructor(options = {}) {
    const initialMs = options.initialMs ?? 100;
    const maxMs = options.maxMs ?? 10000;
    const healthyAfterMs = options.healthyAfterMs ?? 5000;
    if (!Number.isSafeInteger(initialMs) || initialMs < 1) {
      throw new RangeError(`initialBackoffMs must be an integer >= 1, was ${initialMs}`);
    }
    if (!Number.isSafeInteger(maxMs) || maxMs < initialMs) {
      throw new RangeError(`maxBackoffMs must be an integer >= initialBackoffMs ${initialMs}, was ${maxMs}`);
    }
    if (!(Number.isFinite(healthyAfterMs) && healthyAfterMs >= 0)) {
      throw new RangeError(`healthyAfterMs must be finite and >= 0, was ${healthyAfterMs}`);
    }
    const random = options.random ?? Math.random;
    if (typeof random !== 'function') {
      throw new TypeError(`random must be a function returning numbers in [0, 1), was ${typeof random}`);
    }
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.healthyAfterMs = healthyAfterMs;
    this.random = random;
    /** the attempt number k of the next delay */
    this.attempt = 0;
  }

  /**
   * The delay before the next attempt after a session ended, and a step up for the one after.
   * @param {number} welcomedForMs how long the ended session had been welcomed, or a negative
   *   number if it never was (a failed attempt)
   * @returns {number} whole milliseconds in [b/2, b]
   */
  nextDelayMs(welcomedForMs) {
    if (welcomedForMs >= this.healthyAfterMs) {
      this.attempt = 0;
    }
    const base = this.baseMs(this.attempt);
    if (base < this.maxMs) {
      this.attempt++;
    }
    const low = base - Math.floor(base / 2);
    // A random() that breaks its contract must not give a delay outside [low, base].
    const r = Math.min(Math.max(Number(this.random()) || 0, 0), 1 - Number.EPSILON);
    return low + Math.floor(r * (base - low + 1));
  }

  /**
   * The un-jittered base of attempt `k`: `min(maxMs, initialMs * 2^k)`.
   * @param {number} k
   * @returns {number}
   */
  baseMs(k) {
    return Math.min(this.maxMs, this.initialMs * 2 ** Math.min(k, 60));
  }
}

/**
 * Khameleon sessions over WebSockets: ring-buffer cache, cache manager, predictor manager. Create
 * with {@link KhameleonClient.connect}.
 *
 * A connection lost after the first welcome (server restart, network change, a close for a
 * protocol error or a rejected state) is re-established after a {@link ReconnectBackoff} delay,
 * unless `reconnect: false` or {@link KhameleonClient#close} was called; a failed *first*
 * connection is not retried (the promise of `connect` rejects). A reconnect asks the server to
 * resume the session with the cache as it is (unless `resume: false`); a server sharing the resume
 * key of the one that issued the token continues the ring where it stopped (`onResume(true, …)`).
 * Any other new session empties the cache (`onCacheInvalidated`). Either way the client keeps the
 * registrations, the predictor and its history, sends the predictor's state at once and the last
 * scope again.
 */
export class KhameleonClient {
  /**
   * Opens a session and resolves once the server's `welcome` arrives.
   *
   * @param {object} options  see `KhameleonClientOptions` in khameleon.d.ts: `url` (ws:// address
   *   of the application's path) and `application` are required; `cacheBlocks` is the ring size C
   *   (default 2000); `predictor` defaults to a {@link KalmanPredictor} over the welcome's
   *   horizons; `reconnect` (default true), `initialBackoffMs` (100), `maxBackoffMs` (10000),
   *   `healthyAfterMs` (5000) and `random` set the reconnect policy; `resume` (default true) asks
   *   for the session and cache to be resumed on a reconnect; `onConnected`, `onResume`, `onClose`,
   *   `onCacheInvalidated`, `onServerError`, `onStateRejected` and `onRebind` are told what
   *   happens (exceptions they throw are logged and contained)
   * @returns {Promise<KhameleonClient>} rejects if the first connection closes before its welcome
   */
  static connect(options) {
    return new Promise((resolve, reject) => {
      const client = new KhameleonClient(options);
      client._first = { resolve, reject };
      client._open();
    });
  }

  /** @private */
  constructor(options) {
    if (options === null || typeof options !== 'object') {
      throw new TypeError('options must be an object with url and application');
    }
    if (typeof options.url !== 'string' || typeof options.application !== 'string') {
      throw new TypeError('url and application are required strings');
    }
    this.options = options;
    this.cacheBlocks = options.cacheBlocks ?? 2000;
    if (!Number.isInteger(this.cacheBlocks) || this.cacheBlocks < 1) {
      throw new RangeError(`cacheBlocks must be an integer >= 1, was ${this.cacheBlocks}`);
    }
    const reconnect = options.reconnect ?? true;
    if (typeof reconnect !== 'boolean') {
      throw new TypeError(`reconnect must be a boolean, was ${reconnect}`);
    }
    /** whether a lost connection is re-established */
    this.reconnect = reconnect;
    const resume = options.resume ?? true;
    if (typeof resume !== 'boolean') {
      throw new TypeError(`resume must be a boolean, was ${resume}`);
    }
    /** whether a reconnect asks to resume the session, cache included */
    this.resume = resume;
    /** @type {string|null} the newest resume token of the session */
    this.resumeToken = null;
    this.backoff = new ReconnectBackoff({
      initialMs: options.initialBackoffMs,
      maxMs: options.maxBackoffMs,
      healthyAfterMs: options.healthyAfterMs,
      random: options.random,
    });
    this.cache = new RingBufferCache(this.cacheBlocks);
    this.manager = new CacheManager(this.cache, { utility: options.utility });
    /** @type {Welcome|null} the welcome of the current session, or of the last one */
    this.welcome = null;
    /** the sequence number the current (or last) session expects next: one past the last frame received or skipped */
    this.nextSeq = 0;
    /** true once the client is over: closed by the application, or lost without reconnecting */
    this.closed = false;
    /** true while a session is welcomed and open */
    this.connected = false;
    /** sessions welcomed after the first */
    this.reconnects = 0;
    /** the server's last error message, if any */
    this.lastError = null;
    /** @type {PredictorManager|null} created at the first welcome, kept across sessions */
    this.predictors = null;
    /** the last scope given to scope(), sent again on each new session; undefined before */
    this.lastScope = undefined;
    this.reconnectTimer = null;
    this._first = null;
    /** the live session: its socket and what it has seen */
    this.session = null;
  }

  _open() {
    const ws = new WebSocket(this.options.url);
    ws.binaryType = 'arraybuffer';
    const session = { ws, welcomed: false, welcomedAt: 0, error: null, askedToResume: false };
    this.session = session;
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: 'hello', protocol: PROTOCOL_VERSION, application: this.options.application, cacheBlocks: this.cacheBlocks };
      if (this.options.token !== undefined) {
        hello.token = this.options.token;
      }
      const parts = [];
      if (this.resume) {
        hello.features = [FEATURE_RESUME];
        if (this.resumeToken !== null && this.welcome !== null) {
          const runs = this.cache.manifest(this.nextSeq);
          const messages = Math.max(1, Math.ceil(runs.length / RUNS_PER_MESSAGE));
          if (messages <= MAX_RESUME_MESSAGES) {
            hello.resume = { token: this.resumeToken, nextSeq: this.nextSeq, manifest: runs.slice(0, RUNS_PER_MESSAGE),
              parts: messages - 1 };
            for (let k = 1; k < messages; k++) {
              parts.push({ type: 'resumePart', manifest: runs.slice(k * RUNS_PER_MESSAGE, (k + 1) * RUNS_PER_MESSAGE) });
            }
            session.askedToResume = true;
          }
        }
      }
      this._send(hello);
      parts.forEach((m) => this._send(m));
    };
    ws.onmessage = (event) => {
      if (this.session !== session) {
        return; // a socket this client has left behind
      }
      try {
        if (typeof event.data === 'string') {
          this._onControl(session, JSON.parse(event.data));
        } else {
          this._onFrame(session, event.data);
        }
      } catch (e) {
        const code = e instanceof ProtocolError ? e.code : 'invalid_message';
        console.error('khameleon: closing after a bad message from the server:', e);
        session.error = { code, message: String(e.message ?? e) };
        this.lastError = session.error;
        this._shutdown(1007, code);
      }
    };
    ws.onclose = (event) => this._onClose(session, event);
  }

  /** The session is over: tells the application and schedules the next attempt, if any. */
  _onClose(session, event) {
    if (this.session !== session) {
      return;
    }
    this.session = null;
    this.connected = false;
    this.predictors?.stop();
    if (session.askedToResume && !session.welcomed) {
      // The server may not take this resume (e.g. a frame limit below the manifest's size): the
      // next attempt starts afresh, so a resume never becomes a reconnect loop.
      this.resumeToken = null;
    }
    const first = this._first;
    if (first !== null && !session.welcomed) {
      this._first = null;
      first.reject(new Error(`khameleon: connection closed before welcome: ${event.code} ${event.reason}`
        + (session.error ? ` (${session.error.code}: ${session.error.message})` : '')));
    }
    const willReconnect = this.reconnect && !this.closed && this.welcome !== null;
    let delayMs;
    if (willReconnect) {
      delayMs = this.backoff.nextDelayMs(session.welcomed ? performance.now() - session.welcomedAt : -1);
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        if (!this.closed) {
          this._open();
        }
      }, delayMs);
    } else {
      this.closed = true;
    }
    this._tell('onClose', { code: event.code, reason: event.reason, error: session.error ?? undefined, willReconnect, delayMs });
  }

  /** Calls the application's `name` callback, containing what it throws. */
  _tell(name, ...args) {
    const callback = this.options[name];
    if (typeof callback !== 'function') {
      return;
    }
    try {
      callback(...args);
    } catch (e) {
      console.error(`khameleon: ${name} threw`, e);
    }
  }

  _onControl(session, message) {
    if (message === null || typeof message !== 'object' || typeof message.type !== 'string') {
      throw new ProtocolError('invalid_message', 'control message without a type');
    }
    switch (message.type) {
      case 'welcome':
        this._onWelcome(session, message);
        return;
      case 'rebind':
        this._onRebind(session, message);
        return;
      case 'resumeToken':
        if (session.welcomed && typeof message.token === 'string') {
          this.resumeToken = message.token;
        }
        return;
      case 'error': {
        const error = { code: String(message.code), message: String(message.message ?? '') };
        session.error = error;
        this.lastError = error;
        console.warn('khameleon: server error', error);
        this._tell('onServerError', error);
        if (error.code === 'invalid_state' && session.welcomed) {
          const state = this.predictors.rejectLastState();
          if (state !== undefined) {
            this._tell('onStateRejected', state, error.message);
          }
        }
        return;
      }
      default:
        return; // unknown types from a newer server are ignored
    }
  }

  _onWelcome(session, message) {
    if (session.welcomed) {
      throw new ProtocolError('invalid_message', 'second welcome');
    }
    if (message.protocol !== PROTOCOL_VERSION || !Number.isInteger(message.requestCount) || !Array.isArray(message.horizons)) {
      throw new ProtocolError('invalid_message', `bad welcome: ${JSON.stringify(message)}`);
    }
    const again = this.welcome !== null;
    // Keep the cache only if the server continues exactly where the ring stopped.
    const resumed = session.askedToResume && message.resumed === true && message.firstSeq === this.nextSeq;
    session.welcomed = true;
    session.welcomedAt = performance.now();
    this.welcome = message;
    this.nextSeq = message.firstSeq ?? 0;
    this.connected = true;
    this.resumeToken = typeof message.resumeToken === 'string' ? message.resumeToken : null;
    if (again) {
      this.reconnects++;
      if (!resumed) {
        this.manager.reset();
      }
    }
    if (this.predictors === null) {
      const predictor = this.options.predictor ?? new KalmanPredictor({ horizons: message.horizons });
      this.predictors = new PredictorManager({
        predictor,
        send: (m) => this._send(m),
        stateIntervalMs: this.options.stateIntervalMs,
        rateIntervalMs: this.options.rateIntervalMs,
        missStateIntervalMs: this.options.missStateIntervalMs,
        // Read when each report is built; the manager exists only once a session was welcomed.
        nextSeq: () => (this.welcome !== null ? this.nextSeq : undefined),
      });
    }
    if (this.lastScope !== undefined && (message.features ?? []).includes(FEATURE_SCOPE)) {
      this._send({ type: 'scope', scope: this.lastScope });
    }
    this.predictors.start();
    this.predictors.sendState();
    this._tell('onConnected', message);
    if (session.askedToResume) {
      this._tell('onResume', resumed, message, typeof message.resumeRefused === 'string' ? message.resumeRefused : '');
    }
    if (again && !resumed) {
      this._tell('onCacheInvalidated', this.nextSeq);
    }
    const first = this._first;
    if (first !== null) {
      this._first = null;
      first.resolve(this);
    }
  }

  _onRebind(session, message) {
    if (!session.welcomed || !(this.welcome.features ?? []).includes(FEATURE_SCOPE)) {
      throw new ProtocolError('invalid_message', 'rebind from a session that does not offer "scope"');
    }
    const pairs = message.requests;
    if (!Array.isArray(pairs) || pairs.length < 1 || pairs.length > 4096) {
      throw new ProtocolError('invalid_message', 'rebind.requests must be an array of 1 to 4096 pairs');
    }
    const ids = [];
    const generations = [];
    for (const p of pairs) {
      const ok = Array.isArray(p) && p.length === 2 && Number.isInteger(p[0]) && Number.isInteger(p[1])
        && p[0] >= (ids.length === 0 ? 0 : ids[ids.length - 1] + 1) && p[0] < this.welcome.requestCount
        && p[1] >= 0 && p[1] <= 0x7fffffff;
      if (!ok) {
        throw new ProtocolError('invalid_message', `bad rebind pair ${JSON.stringify(p)}`);
      }
      ids.push(p[0]);
      generations.push(p[1]);
    }
    this.manager.rebind(ids, generations);
    this._tell('onRebind', ids);
  }

  _onFrame(session, buffer) {
    if (!session.welcomed) {
      throw new ProtocolError('invalid_message', 'block frame before welcome');
    }
    const frame = decodeBlockFrame(buffer);
    if (frame.seq !== this.nextSeq) {
      throw new ProtocolError('invalid_message', `seq must be ${this.nextSeq}, was ${frame.seq}`);
    }
    if (frame.requestId >= this.welcome.requestCount) {
      throw new ProtocolError('invalid_message', `requestId must be < ${this.welcome.requestCount}, was ${frame.requestId}`);
    }
    if (frame.payload.length !== this.welcome.blockSize) {
      throw new ProtocolError('invalid_message', `payloadLength must be ${this.welcome.blockSize}, was ${frame.payload.length}`);
    }
    this.nextSeq++;
    this.predictors.onBytes(frame.frameBytes);
    if (!this.manager.accepts(frame)) {
      this.cache.skip(frame.seq);
      return;
    }
    this.cache.put(frame);
    this.manager.onBlock(frame);
  }

  _send(message) {
    if (this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
    }
  }

  _shutdown(code, reason) {
    this.predictors?.stop();
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) {
      this.ws.close(code, reason);
    }
  }

  /**
   * Feeds a pointer position (in the server layout's coordinates) to the predictor.
   * @param {number} x @param {number} y @param {number} [timeMillis] epoch ms, default Date.now()
   */
  pointer(x, y, timeMillis = Date.now()) {
    this.predictors?.onEvent({ x, y, timeMillis });
  }

  /**
   * Asks for `requestId`: the upcall gets its usable prefix now if cached, else when it arrives,
   * and again as it improves. Also reported to the server as a `request` event (for metrics and,
   * on a miss, so that the server fetches its blocks first).
   * @param {number} requestId
   * @param {(response: Response) => void} upcall
   * @returns {Registration}
   */
  register(requestId, upcall) {
    if (this.welcome !== null && (!Number.isInteger(requestId) || requestId < 0 || requestId >= this.welcome.requestCount)) {
      throw new RangeError(`requestId must be in [0, ${this.welcome.requestCount}), was ${requestId}`);
    }
    const time = Date.now();
    const registration = this.manager.register(requestId, upcall);
    // A miss says so: the server fetches this request's blocks ahead of speculative ones.
    this._send(registration.hit ? { type: 'request', time, request: requestId }
      : { type: 'request', time, request: requestId, miss: true });
    if (!registration.hit) {
      this.predictors?.onMiss();
    }
    return registration;
  }

  /**
   * Sends this client's request scope (e.g. its brushes) to an application whose request ids mean
   * different content per session. The server answers with the ids whose meaning changed
   * (`onRebind`); until then the cache still answers with the old meaning. The newest scope is
   * sent again on every new session after a reconnect (while disconnected, it waits for that).
   * @param {*} scope any JSON value the application's server-side RequestScope decodes
   * @throws {Error} if the session's welcome does not offer the "scope" feature
   */
  scope(scope) {
    if (this.welcome === null || !(this.welcome.features ?? []).includes(FEATURE_SCOPE)) {
      throw new Error('khameleon: this application does not bind requests per session (no "scope" feature)');
    }
    if (scope === undefined || scope === null) {
      throw new TypeError('khameleon: scope must be a JSON value other than null');
    }
    this.lastScope = scope;
    if (this.connected) {
      this._send({ type: 'scope', scope });
    }
  }

  /**
   * @returns {Metrics & {bytesPerSecond: number, reconnects: number}} metrics, the last measured
   *   receive rate and the number of sessions welcomed after the first
   */
  metrics() {
    return { ...this.manager.metrics(), bytesPerSecond: this.predictors?.bytesPerSecond ?? 0, reconnects: this.reconnects };
  }

  /**
   * Leaves for good: sends `bye` on the open session (the server closes with 1000) and cancels
   * any pending reconnect. Registrations get no more upcalls once the connection is closed.
   */
  close() {
    this.closed = true;
    if (this.reconnectTimer !== null) {
      clearTimeout(this.reconnectTimer);
      this.reconnectTimer = null;
    }
    this.predictors?.stop();
    if (this.ws.readyState === WebSocket.OPEN) {
      this._send({ type: 'bye' });
    } else {
      this._shutdown(1000, 'bye');
    }
  }
}

/**
 * The length of the longest part of a JPEG prefix that a decoder renders once an EOI marker is
 * appended: up to the end of the last scan's entropy-coded data (a scan cut short counts up to
 * its last whole byte, a trailing 0xFF dropped), or the whole JPEG when its EOI is present. A DHT
 * or SOS segment cut short at the end (which decoders reject as "Bogus Huffman table
 * definition") is left out, as are tables whose scan has not arrived. 0 when nothing is
 * renderable yet. The twin of the Java `ProgressiveJpegEncoder.renderablePrefix`; accepts any bytes.
 * @param {Uint8Array} bytes
 * @returns {number}
 */
export function jpegRenderableLength(bytes) {
  const n = bytes.length;
  if (n < 2 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return 0;
  let renderable = 0; // the end of the last scan's data seen so far
  let pos = 2;
  while (pos < n && bytes[pos] === 0xff) {
    while (pos < n && bytes[pos] === 0xff) pos++; // fill bytes
    if (pos >= n) return renderable;
    const marker = bytes[pos++];
    if (marker === 0xd9) return renderable > 0 ? pos : 0;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) continue; // no length
    if (marker === 0x00 || pos + 2 > n) return renderable;
    const headerEnd = pos + ((bytes[pos] << 8) | bytes[pos + 1]);
    if (headerEnd < pos + 2 || headerEnd > n) return renderable;
    pos = headerEnd;
    if (marker !== 0xda) continue;
    let i = headerEnd;
    let dataEnd = -1;
    while (i + 1 < n) {
      if (bytes[i] === 0xff) {
        const next = bytes[i + 1];
        if (next !== 0x00 && !(next >= 0xd0 && next <= 0xd7)) { dataEnd = i; break; }
        i += 2;
      } else {
        i++;
      }
    }
    if (dataEnd < 0) {
      // The scan runs to the end of the prefix: decoders render it as far as it goes.
      return bytes[n - 1] === 0xff && n - 1 >= headerEnd ? n - 1 : n;
    }
    renderable = dataEnd;
    pos = dataEnd;
  }
  return renderable;
}

/**
 * Turns a JPEG prefix into something an <img> or canvas can show: cuts it back to
 * `jpegRenderableLength` (so no half Huffman table or scan header is left at its end) and appends
 * an EOI marker when missing, so browsers decode a truncated progressive scan as far as it goes.
 * A prefix with nothing renderable yet gives an empty blob (which fails to decode).
 * @param {Uint8Array} bytes
 * @returns {Blob}
 */
export function jpegPrefixBlob(bytes) {
  const n = jpegRenderableLength(bytes);
  if (n === 0) return new Blob([], { type: 'image/jpeg' });
  const cut = bytes.subarray(0, n);
  if (n >= 2 && cut[n - 2] === 0xff && cut[n - 1] === 0xd9) {
    return new Blob([cut], { type: 'image/jpeg' });
  }
  return new Blob([cut, new Uint8Array([0xff, 0xd9])], { type: 'image/jpeg' });
}
