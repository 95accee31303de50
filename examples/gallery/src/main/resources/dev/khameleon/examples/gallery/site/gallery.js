// The gallery page: a mosaic of thumbnails; hovering a tile shows its full picture, a
// progressive JPEG drawn from whatever prefix of it is in the Khameleon cache.
import { KhameleonClient, jpegPrefixBlob } from './khameleon/khameleon.js';

const info = await (await fetch('info.json')).json();
const mosaic = /** @type {HTMLImageElement} */ (document.getElementById('mosaic'));
const cursor = document.getElementById('cursor-tile');
const tileLabel = document.getElementById('tile-label');
const view = /** @type {HTMLCanvasElement} */ (document.getElementById('view'));
const viewCtx = view.getContext('2d');
const status = document.getElementById('status');
const $ = (id) => document.getElementById(id);

document.getElementById('link').textContent = info.linkBytesPerSecond > 0 || info.latencyMs > 0
  ? `emulated link: ${info.linkBytesPerSecond > 0 ? (info.linkBytesPerSecond / 1e6).toFixed(2) + ' MB/s' : 'unlimited'}, `
    + `${info.latencyMs} ms round trip` : 'no link emulation';

mosaic.src = 'mosaic.jpg';
await mosaic.decode();
// The thumbnails as pixels, to check that what the large view shows is the hovered tile.
const thumbs = new OffscreenCanvas(mosaic.naturalWidth, mosaic.naturalHeight).getContext('2d', { willReadFrequently: true });
thumbs.drawImage(mosaic, 0, 0);
const probe = new OffscreenCanvas(info.thumbWidth, info.thumbHeight).getContext('2d', { willReadFrequently: true });

/** The measured utility curve, piecewise linear through (0, 0). */
function utilityOf(curve) {
  const xs = [0, ...curve.fractions];
  const ys = [0, ...curve.utilities];
  return (f) => {
    for (let i = 1; i < xs.length; i++) {
      if (f <= xs[i]) {
        return ys[i - 1] + (ys[i] - ys[i - 1]) * (f - xs[i - 1]) / (xs[i] - xs[i - 1]);
      }
    }
    return 1;
  };
}
const utility = utilityOf(info.utility);

/** What the page did, for people (the panel) and for the browser test. */
const gallery = {
  mode: 'khameleon',
  ready: false,
  /** one entry per picture drawn into the large view */
  log: [],
  plain: { requests: 0, answered: 0, latencies: [], utilitySum: 0, bytes: 0, since: performance.now() },
  metrics: () => metrics(),
};
window.gallery = gallery;

let client = null;
let current = -1;
let registration = null;
let hoverStarted = 0;
let drawSeq = 0;
let lastDrawn = 0;

async function connect() {
  status.textContent = 'connecting…';
  const url = `ws://${location.hostname}:${info.wsPort}${info.wsPath}`;
  try {
    client = await KhameleonClient.connect({
      url, application: info.application, cacheBlocks: info.cacheBlocks, utility,
      // Every welcome, the first and each after a reconnect.
      onConnected: (w) => {
        status.textContent = `connected: session ${w.session}, ${w.requestCount} pictures, `
          + `cache ${w.cacheBlocks} blocks of ${w.blockSize} bytes`;
        status.className = '';
      },
      onClose: (e) => {
        if (gallery.mode === 'khameleon') {
          status.textContent = `disconnected (${e.code} ${e.reason})`
            + (e.willReconnect ? `; reconnecting in ${(e.delayMs / 1000).toFixed(1)} s` : '');
          status.className = 'error';
        }
      },
    });
    gallery.ready = true;
  } catch (e) {
    status.textContent = String(e.message ?? e);
    status.className = 'error';
  }
}

function tileAt(x, y) {
  const col = Math.floor(x / info.thumbWidth);
  const row = Math.floor(y / info.thumbHeight);
  if (col < 0 || row < 0 || col >= info.cols || row >= info.rows) {
    return -1;
  }
  return row * info.cols + col;
}

mosaic.addEventListener('mousemove', (e) => {
  const rect = mosaic.getBoundingClientRect();
  const x = e.clientX - rect.left;
  const y = e.clientY - rect.top;
  if (client !== null && gallery.mode === 'khameleon') {
    client.pointer(x, y);
  }
  const tile = tileAt(x, y);
  if (tile >= 0 && tile !== current) {
    hover(tile);
  }
});

function hover(tile) {
  current = tile;
  hoverStarted = performance.now();
  cursor.style.display = 'block';
  cursor.style.left = `${(tile % info.cols) * info.thumbWidth}px`;
  cursor.style.top = `${Math.floor(tile / info.cols) * info.thumbHeight}px`;
  cursor.style.width = `${info.thumbWidth}px`;
  cursor.style.height = `${info.thumbHeight}px`;
  showTileLabel(tile);
  registration?.cancel();
  registration = null;
  if (gallery.mode === 'khameleon') {
    if (client !== null && !client.closed) {
      registration = client.register(tile, (r) => show(tile, r.bytes, {
        blocks: r.blocks, blockCount: r.blockCount, hit: r.hit, first: r.first, latencyMs: r.latencyMs, utility: r.utility,
      }));
    }
  } else {
    fetchPlain(tile);
  }
}

/** The hovered tile's number in legible print, centred above the tile (below it in the first rows), inside the mosaic. */
function showTileLabel(tile) {
  tileLabel.textContent = `#${tile}`;
  tileLabel.style.display = 'block';
  const x = (tile % info.cols) * info.thumbWidth;
  const y = Math.floor(tile / info.cols) * info.thumbHeight;
  const w = tileLabel.offsetWidth;
  const h = tileLabel.offsetHeight;
  const gap = 4;
  const left = Math.max(0, Math.min(info.cols * info.thumbWidth - w, x + (info.thumbWidth - w) / 2));
  const top = y - h - gap >= 0 ? y - h - gap : y + info.thumbHeight + gap;
  tileLabel.style.left = `${left}px`;
  tileLabel.style.top = `${top}px`;
}

async function fetchPlain(tile) {
  const started = performance.now();
  gallery.plain.requests++;
  const response = await fetch(`full/${tile}.jpg`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const latencyMs = performance.now() - started;
  gallery.plain.bytes += bytes.length;
  if (tile !== current) {
    return; // the user moved on: the answer is late
  }
  gallery.plain.answered++;
  gallery.plain.utilitySum += 1;
  gallery.plain.latencies.push(latencyMs);
  show(tile, bytes, { blocks: 1, blockCount: 1, hit: false, first: true, latencyMs, utility: 1 });
}

async function show(tile, bytes, meta) {
  const seq = ++drawSeq;
  let bitmap;
  try {
    bitmap = await createImageBitmap(jpegPrefixBlob(bytes));
  } catch (e) {
    console.warn('cannot decode a prefix of', bytes.length, 'bytes of tile', tile, e);
    return;
  }
  if (tile !== current || seq < lastDrawn) {
    bitmap.close();
    return;
  }
  lastDrawn = seq;
  viewCtx.drawImage(bitmap, 0, 0, view.width, view.height);
  probe.drawImage(bitmap, 0, 0, info.thumbWidth, info.thumbHeight);
  bitmap.close();
  const shown = probe.getImageData(0, 0, info.thumbWidth, info.thumbHeight).data;
  const neighbour = tile + 1 < info.requestCount ? tile + 1 : tile - 1;
  gallery.log.push({
    tile, hovered: current, mode: gallery.mode, ...meta, bytes: bytes.length,
    paintMs: performance.now() - hoverStarted,
    lumaStd: lumaStd(shown),
    thumbDiff: meanAbsDiff(shown, thumbPixels(tile)),
    neighbourDiff: meanAbsDiff(shown, thumbPixels(neighbour)),
  });
  $('caption').textContent = `#${tile}: ${meta.blocks}/${meta.blockCount} blocks, utility ${meta.utility.toFixed(2)}`
    + (meta.first ? `, answered in ${meta.latencyMs.toFixed(0)} ms${meta.hit ? ' from the cache' : ''}` : '');
}

function thumbPixels(tile) {
  return thumbs.getImageData((tile % info.cols) * info.thumbWidth, Math.floor(tile / info.cols) * info.thumbHeight,
    info.thumbWidth, info.thumbHeight).data;
}

function lumaStd(rgba) {
  let sum = 0;
  let sq = 0;
  const n = rgba.length / 4;
  for (let i = 0; i < rgba.length; i += 4) {
    const y = 0.299 * rgba[i] + 0.587 * rgba[i + 1] + 0.114 * rgba[i + 2];
    sum += y;
    sq += y * y;
  }
  const mean = sum / n;
  return Math.sqrt(Math.max(0, sq / n - mean * mean));
}

function meanAbsDiff(a, b) {
  let d = 0;
  for (let i = 0; i < a.length; i += 4) {
    d += Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]);
  }
  return d / (a.length / 4 * 3);
}

function metrics() {
  if (gallery.mode === 'khameleon' && client !== null) {
    return { mode: 'khameleon', ...client.metrics() };
  }
  const p = gallery.plain;
  const sorted = [...p.latencies].sort((a, b) => a - b);
  const seconds = (performance.now() - p.since) / 1000;
  return {
    mode: 'plain', registrations: p.requests, hits: 0, hitRate: 0, preempted: p.requests - p.answered, answered: p.answered,
    meanLatencyMs: p.answered ? p.latencies.reduce((s, v) => s + v, 0) / p.answered : 0,
    p95LatencyMs: sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(0.95 * sorted.length))] : 0,
    meanUtility: p.answered ? p.utilitySum / p.answered : 0, blocksReceived: p.answered, blocksUsed: p.answered,
    bytesPerSecond: seconds > 0 ? p.bytes / seconds : 0, recentLatenciesMs: p.latencies.slice(-200),
  };
}

function updatePanel() {
  const m = metrics();
  $('m-latency').textContent = m.answered ? `mean ${m.meanLatencyMs.toFixed(0)} ms, p95 ${m.p95LatencyMs.toFixed(0)} ms` : '–';
  $('m-hits').textContent = m.registrations ? `${(100 * m.hitRate).toFixed(0)} % of ${m.registrations}` : '–';
  $('m-utility').textContent = m.answered ? m.meanUtility.toFixed(2) : '–';
  $('m-bandwidth').textContent = `${(m.bytesPerSecond / 1e6).toFixed(2)} MB/s`;
  $('m-blocks').textContent = `${m.blocksReceived} / ${m.blocksUsed}`;
  $('m-requests').textContent = `${m.registrations} / ${m.preempted}`;
}
setInterval(updatePanel, 250);

for (const radio of document.querySelectorAll('input[name=mode]')) {
  radio.addEventListener('change', async () => {
    gallery.mode = radio.value;
    registration?.cancel();
    current = -1;
    if (radio.value === 'plain') {
      client?.close();
      client = null;
      gallery.plain = { requests: 0, answered: 0, latencies: [], utilitySum: 0, bytes: 0, since: performance.now() };
      status.textContent = 'plain request/response: every hover fetches full/<id>.jpg';
      status.className = '';
    } else {
      await connect();
    }
  });
}

await connect();
