// Type-checked against khameleon.d.ts through the package's own name and "exports" map
// (`npm run typecheck`); never run. Each @ts-expect-error line must fail to compile.
import {
  CacheManager,
  FEATURE_RESUME,
  FEATURE_SCOPE,
  KalmanPredictor,
  KhameleonClient,
  PROTOCOL_VERSION,
  PredictorManager,
  ProtocolError,
  ReconnectBackoff,
  RingBufferCache,
  concatContent,
  decodeBlockFrame,
  jpegPrefixBlob,
  jpegRenderableLength,
} from '@khameleon/client';
import type {
  BlockFrame,
  ClientPredictor,
  CloseInfo,
  KhameleonClientOptions,
  Metrics,
  PointerForecast,
  PointerSample,
  Registration,
  Response,
  ServerError,
  Welcome,
} from '@khameleon/client';

export async function gallery(canvas: HTMLCanvasElement, img: HTMLImageElement): Promise<void> {
  const closes: CloseInfo[] = [];
  const options: KhameleonClientOptions = {
    url: 'ws://127.0.0.1:8080/gallery',
    application: 'gallery',
    cacheBlocks: 5000,
    utility: (f) => Math.sqrt(f),
    initialBackoffMs: 100,
    maxBackoffMs: 10_000,
    healthyAfterMs: 5_000,
    onConnected: (w: Welcome) => console.log(w.session, w.requestCount, w.blockCounts.default, w.features?.includes(FEATURE_SCOPE)),
    onCacheInvalidated: (firstSeq: number) => console.log(firstSeq),
    resume: true,
    onResume: (resumed: boolean, w: Welcome, refusal: string) =>
      console.log(resumed, w.firstSeq, w.resumed, w.resumeRefused, refusal, w.features?.includes(FEATURE_RESUME)),
    onClose: (info) => {
      closes.push(info);
      if (info.willReconnect) console.log(`again in ${info.delayMs} ms`, info.error?.code);
    },
    onServerError: (e: ServerError) => console.warn(e.code, e.message),
    onStateRejected: (state, message) => console.warn(state, message),
  };
  const client: KhameleonClient = await KhameleonClient.connect(options);
  canvas.addEventListener('mousemove', (e) => client.pointer(e.offsetX, e.offsetY));
  const registration: Registration = client.register(7, (r: Response) => {
    img.src = URL.createObjectURL(jpegPrefixBlob(r.bytes));
    if (r.first) console.log(r.hit ? 'hit' : `after ${r.latencyMs} ms`, r.blocks, r.blockCount, r.utility);
  });
  registration.cancel();
  const m: Metrics & { bytesPerSecond: number; reconnects: number } = client.metrics();
  console.log(m.hitRate, m.p95LatencyMs, m.bytesPerSecond, m.reconnects, client.connected, client.closed);
  console.log(client.welcome?.blockSize, client.lastError?.code, client.backoff.attempt);
  client.close();

  // @ts-expect-error request ids are numbers
  client.register('7', () => {});
  // @ts-expect-error url is required
  await KhameleonClient.connect({ application: 'gallery' });
  // @ts-expect-error reconnect is a boolean
  await KhameleonClient.connect({ url: 'ws://h/a', application: 'a', reconnect: 'yes' });
}

/** A custom client half with its own event type. */
interface Hover {
  view: number;
}

class HoverPredictor implements ClientPredictor<Hover> {
  private view = -1;

  onEvent(event: Hover): void {
    this.view = event.view;
  }

  state(): { request: number } {
    return { request: this.view };
  }
}

export async function crossfilter(): Promise<void> {
  const client = await KhameleonClient.connect<Hover>({
    url: 'ws://127.0.0.1:8080/xf',
    application: 'xf',
    predictor: new HoverPredictor(),
    reconnect: false,
    onRebind: (ids: number[]) => console.log(ids.length),
  });
  client.scope({ DISTANCE: [0, 100] });
  client.close();
}

export function pieces(buffer: ArrayBuffer): number {
  const version: 1 = PROTOCOL_VERSION;
  let frame: BlockFrame;
  try {
    frame = decodeBlockFrame(buffer);
  } catch (e) {
    if (e instanceof ProtocolError) return e.code.length;
    throw e;
  }
  const cache = new RingBufferCache(16);
  const evicted: BlockFrame | undefined = cache.put(frame);
  const manager = new CacheManager(cache, { now: () => 0, latencyWindow: 10 });
  manager.register(frame.requestId, (r) => console.log(r.bytes.byteLength));
  manager.onBlock(frame);
  manager.rebind([frame.requestId], [1]);
  manager.reset();
  const bytes: Uint8Array = concatContent(cache.prefix(frame.requestId));

  const kalman = new KalmanPredictor({ horizons: [50, 150], velocityDecayMillis: 0 });
  const sample: PointerSample = { x: 1, y: 2, timeMillis: 3 };
  kalman.onEvent(sample);
  const forecast = kalman.state(10) as PointerForecast;
  const predictors = new PredictorManager({ predictor: kalman, send: (msg) => console.log(msg), stateIntervalMs: 50,
    nextSeq: () => (frame.seq >= 0 ? frame.seq + 1 : undefined) });
  predictors.onMiss();
  predictors.stop();

  const backoff = new ReconnectBackoff({ initialMs: 50, maxMs: 800, random: () => 0.5 });
  const delay: number = backoff.nextDelayMs(-1);
  // @ts-expect-error options are named
  new ReconnectBackoff(50);
  return version + (evicted?.seq ?? 0) + bytes.length + forecast.mean.length + delay
    + jpegRenderableLength(bytes) + manager.generation(0) + kalman.restAfterMillis();
}
