// Run with `npm test` (node --test): the receive-rate reports' `nextSeq` and the request events' `miss`,
// and mocked timers, so no server is needed.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { KalmanPredictor, KhameleonClient, PredictorManager } from '../khameleon.js';

/** Payload bytes of every block frame the tests send. */
const BLOCK_SIZE = 8;

/** A WebSocket the test drives: it records what the client sends and delivers what the test says. */
class FakeWebSocket {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSING = 2;
  static CLOSED = 3;
  /** every socket opened, oldest first @type {FakeWebSocket[]} */
  static opened = [];

  /** @param {string} url */
  constructor(url) {
    this.url = url;
    this.readyState = FakeWebSocket.CONNECTING;
    /** the JSON messages the client sent, parsed */
    this.sent = [];
    this.onopen = null;
    this.onmessage = null;
    this.onclose = null;
    FakeWebSocket.opened.push(this);
  }

  send(data) {
    this.sent.push(JSON.parse(data));
  }

  close(code = 1000, reason = '') {
    this.serverClose(code, reason);
  }

  /** The connection opens: the client sends its hello. */
  open() {
    this.readyState = FakeWebSocket.OPEN;
    this.onopen?.({});
  }

  /** Delivers a control message (an object, sent as JSON) or a binary frame (an ArrayBuffer). */
  receive(message) {
    this.onmessage?.({ data: message instanceof ArrayBuffer ? message : JSON.stringify(message) });
  }

  /** The connection ends. */
  serverClose(code = 1001, reason = 'going away') {
    if (this.readyState === FakeWebSocket.CLOSED) {
      return;
    }
    this.readyState = FakeWebSocket.CLOSED;
    this.onclose?.({ code, reason });
  }

  /** The rate reports the client sent on this socket. */
  rates() {
    return this.sent.filter((m) => m.type === 'rate');
  }
}

globalThis.WebSocket = FakeWebSocket;

/**
 * A version 1 block frame (protocol section 4) of a one-block response.
 * @param {number} seq @param {number} requestId @param {number} [generation] sets flag bit 1 when given
 * @returns {ArrayBuffer}
 */
function blockFrame(seq, requestId, generation) {
  const headerLength = generation === undefined ? 32 : 36;
  const buffer = new ArrayBuffer(headerLength + BLOCK_SIZE);
  const v = new DataView(buffer);
  v.setUint8(0, 0x4b);
  v.setUint8(1, 1);
  v.setUint8(2, 1 | (generation === undefined ? 0 : 2));
  v.setUint8(3, headerLength);
  v.setBigInt64(4, BigInt(seq));
  v.setInt32(12, requestId);
  v.setInt32(16, 0);
  v.setInt32(20, 1);
  v.setInt32(24, BLOCK_SIZE);
  v.setInt32(28, 0);
  if (generation !== undefined) {
    v.setInt32(32, generation);
  }
  return buffer;
}

/** A welcome starting the ring at `firstSeq`, with the given extra fields. */
function welcome(session, firstSeq, extra = {}) {
  return {
    type: 'welcome', protocol: 1, session, application: 'gallery', blockSize: BLOCK_SIZE, requestCount: 10,
    cacheBlocks: 16, horizons: [50, 150], firstSeq, blockCounts: { default: 1, exceptions: [], complete: true },
    features: ['resume'], resumeToken: `token-${session}`, ...extra,
  };
}

/** Lets one rate interval (the default 500 ms) pass and returns the rate report it sent on `ws`. */
function nextRate(t, ws) {
  const before = ws.rates().length;
  t.mock.timers.tick(500);
  const rates = ws.rates();
  assert.equal(rates.length, before + 1, 'one rate report per interval');
  return rates[rates.length - 1];
}

/** Connects a client whose first session starts at sequence number 0. */
async function connected(t) {
  t.mock.timers.enable({ apis: ['setInterval', 'setTimeout', 'Date'], now: 1_700_000_000_000 });
  FakeWebSocket.opened = [];
  const promise = KhameleonClient.connect({
    url: 'ws://test/gallery', application: 'gallery', cacheBlocks: 16, random: () => 0,
    predictor: new KalmanPredictor({ horizons: [50, 150] }),
  });
  const ws = FakeWebSocket.opened[0];
  ws.open();
  ws.receive(welcome('one', 0));
  const client = await promise;
  t.after(() => client.close());
  return { client, ws };
}

/** Ends the session on `ws` and lets the reconnect delay pass; returns the new, open socket. */
function reconnect(t, ws) {
  const count = FakeWebSocket.opened.length;
  ws.serverClose();
  t.mock.timers.tick(100); // random() = 0: the first delay is 50 ms
  assert.equal(FakeWebSocket.opened.length, count + 1, 'the client reconnected');
  const next = FakeWebSocket.opened[count];
  next.open();
  return next;
}

test('a rate report carries the nextSeq its option gives when the report is built', () => {
  let now = 1000;
  let seq = 3;
  const sent = [];
  const predictors = new PredictorManager({
    predictor: { onEvent() {}, state: () => ({}) }, send: (m) => sent.push(m), clock: () => now, nextSeq: () => seq,
  });
  predictors.onBytes(500);
  now += 500;
  seq = 7;
  predictors.sendRate();
  assert.deepEqual(sent, [{ type: 'rate', time: 1500, bytesPerSecond: 1000, nextSeq: 7 }]);
});

test('a rate report leaves nextSeq out without a value in [0, 2^53 - 1]', () => {
  for (const nextSeq of [undefined, () => undefined, () => -1, () => 2.5, () => 2 ** 53, () => '4']) {
    let now = 0;
    const sent = [];
    const predictors = new PredictorManager({
      predictor: { onEvent() {}, state: () => ({}) }, send: (m) => sent.push(m), clock: () => now, nextSeq,
    });
    now = 1000;
    predictors.sendRate();
    assert.equal(sent.length, 1);
    assert.equal('nextSeq' in sent[0], false, `no nextSeq for ${nextSeq}`);
  }
  let now = 0;
  const sent = [];
  const predictors = new PredictorManager({
    predictor: { onEvent() {}, state: () => ({}) }, send: (m) => sent.push(m), clock: () => now, nextSeq: () => 2 ** 53 - 1,
  });
  now = 1000;
  predictors.sendRate();
  assert.equal(sent[0].nextSeq, 2 ** 53 - 1, 'the largest value is sent');
});

test('the client reports one past the last frame received or skipped', async (t) => {
  const { client, ws } = await connected(t);
  assert.equal(nextRate(t, ws).nextSeq, 0, 'welcomed, no frame yet: the welcome firstSeq');
  ws.receive(blockFrame(0, 1));
  ws.receive(blockFrame(1, 2));
  ws.receive(blockFrame(2, 3));
  const report = nextRate(t, ws);
  assert.equal(report.nextSeq, 3);
  assert.equal(report.bytesPerSecond, 3 * (32 + BLOCK_SIZE) / 0.5);
  // A block of a binding the client does not have (generation 5 of request 4, which is at 0) is
  // refused, not stored; it still counts.
  ws.receive(blockFrame(3, 4, 5));
  assert.equal(client.metrics().blocksStale, 1, 'the frame was refused');
  assert.equal(nextRate(t, ws).nextSeq, 4);
  assert.equal(nextRate(t, ws).nextSeq, 4, 'no frame since: unchanged');
});

test('after a reconnect the reports follow the new session from its firstSeq', async (t) => {
  const { ws } = await connected(t);
  for (let seq = 0; seq < 5; seq++) {
    ws.receive(blockFrame(seq, seq));
  }
  assert.equal(nextRate(t, ws).nextSeq, 5);

  // A new session (the resume refused): the ring starts again at its firstSeq 0.
  const fresh = reconnect(t, ws);
  assert.equal(fresh.sent[0].resume.nextSeq, 5, 'the hello asked to resume at 5');
  fresh.receive(welcome('two', 0, { resumed: false, resumeRefused: 'unknown_session' }));
  assert.equal(nextRate(t, fresh).nextSeq, 0);
  fresh.receive(blockFrame(0, 1));
  fresh.receive(blockFrame(1, 2, 3)); // refused: counts
  assert.equal(nextRate(t, fresh).nextSeq, 2);

  // A resumed session continues at the hello's nextSeq.
  const resumed = reconnect(t, fresh);
  assert.equal(resumed.sent[0].resume.nextSeq, 2);
  resumed.receive(welcome('two', 2, { resumed: true }));
  assert.equal(nextRate(t, resumed).nextSeq, 2);
  resumed.receive(blockFrame(2, 6));
  resumed.receive(blockFrame(3, 7));
  resumed.receive(blockFrame(4, 8));
  assert.equal(nextRate(t, resumed).nextSeq, 5);
  assert.equal(ws.rates().length, 1, 'no report on a socket left behind');
});

test('a request event says miss only when the cache had no block of the request', async (t) => {
  const { client, ws } = await connected(t);
  ws.receive(blockFrame(0, 1));
  client.register(1, () => {});
  client.register(2, () => {});
  const requests = ws.sent.filter((m) => m.type === 'request');
  assert.deepEqual(requests.map((m) => [m.request, m.miss]), [[1, undefined], [2, true]]);
});
