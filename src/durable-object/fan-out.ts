/**
 * A view across tenants is a fan-out: every tenant is an object of its own, so the Worker asks
 * each object of a page of the directory's listing, a few at a time, each within a time limit
 * (docs/scale.md, "What a view across tenants costs"). One object that is slow or failing costs
 * its own place in the answer, never the answer.
 * @module
 */
import { eventStream } from '../sandbox/http/event-stream.js';

/** How a fan-out is bounded. */
export interface FanOutLimits {
  /** Objects asked at once. */
  concurrency: number;
  /** Milliseconds one object has to answer (its headers, for a stream). */
  timeoutMs: number;
}

/** Tenants per page of a view across tenants: by default, and at most. */
export const FAN_OUT_PAGE = { default: 20, max: 100 } as const;
/** Eight objects at a time, five seconds each. */
export const FAN_OUT_LIMITS: FanOutLimits = { concurrency: 8, timeoutMs: 5_000 };

/** What one object gave: its value, or `null` when it failed or ran out of time. */
export type Gathered<T, R> = { item: T; value: R | null };

/** Runs `ask` over `items`, at most `limits.concurrency` at a time, each aborted after `limits.timeoutMs`; answers in the items' order. */
export async function fanOut<T, R>(items: readonly T[], ask: (item: T, signal: AbortSignal) => Promise<R>, limits: FanOutLimits = FAN_OUT_LIMITS): Promise<Array<Gathered<T, R>>> {
  const out: Array<Gathered<T, R>> = items.map((item) => ({ item, value: null }));
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) {
      const item = items[i] as T;
      const controller = new AbortController();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => {
          controller.abort(new Error('The object did not answer in time.'));
          resolve(null);
        }, limits.timeoutMs);
      });
      try {
        (out[i] as Gathered<T, R>).value = await Promise.race([ask(item, controller.signal), late]);
      } catch {
        // Left null: the view names it as unanswered.
      } finally {
        clearTimeout(timer);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limits.concurrency, items.length) }, lane));
  return out;
}

/** One server-sent event read back: its `event:` name (if any) and its `data:` JSON. */
interface Frame {
  event: string | undefined;
  data: unknown;
}

/** Reads the frames of a `text/event-stream` body, calling `onFrame` for each that carries data (comments and heartbeats skipped). */
async function readFrames(body: ReadableStream<Uint8Array>, onFrame: (frame: Frame) => boolean, signal: AbortSignal): Promise<void> {
  const reader = body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const lines = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
        if (data === '') continue;
        const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
        if (!onFrame({ event, data: JSON.parse(data) })) return;
      }
    }
  } finally {
    signal.removeEventListener('abort', cancel);
    cancel();
  }
}

/**
 * One event stream of many: each source (an object's feed) is opened, a few at a time, and its
 * events are written to one stream in the order they arrive, by the sandbox's one event-stream
 * writer (the same frames, hello and heartbeat as `serve`'s). A source that ends or fails leaves
 * the others; the stream ends when its reader goes away (every source is then cancelled).
 */
export function mergedFeed(sources: ReadonlyArray<(signal: AbortSignal) => Promise<Response>>, hello: string, signal: AbortSignal | undefined, limits: FanOutLimits = FAN_OUT_LIMITS): ReadableStream<Uint8Array> {
  return eventStream(
    (sink) => {
      const stop = new AbortController();
      void fanOut(
        sources,
        async (open, opening) => {
          const response = await open(AbortSignal.any([opening, stop.signal]));
          if (!response.ok || response.body === null) return;
          // Past the opening limit: the stream lives as long as the merged one.
          void readFrames(response.body, (frame) => sink.send(frame.data, frame.event), stop.signal).catch(() => undefined);
        },
        limits,
      );
      return () => stop.abort();
    },
    { hello, signal },
  );
}
