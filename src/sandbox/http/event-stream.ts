/**
 * The one writer of server-sent events, over web streams: the request log's feed
 * (`/_sandbox/logs`, http/request-log.ts) and the inspector's live stream both write through it,
 * so that any host that answers web `Response`s (the Node server, a Worker, a dev server) can
 * serve them. It says hello with a comment (the client knows it is subscribed before the first
 * event), keeps the connection alive with a comment every 15 s, and cuts off a reader that falls
 * more than 1 MB behind instead of holding what it does not read.
 * @module
 */

/** Where a stream's owner sends events. */
export interface EventSink {
  /**
   * Sends one event (`event: <name>` when given, then `data: <JSON>`). `false` once the stream
   * has ended: closed, cancelled by its reader, or cut off.
   */
  send(data: unknown, event?: string): boolean;
  /** Ends the stream after what is queued: the reader sees its end. */
  close(): void;
  /** Ends the stream at once, dropping what is queued: the reader sees an error (cut off). */
  cut(reason: string): void;
}

/** Options of {@link eventStream}. */
export interface EventStreamOptions {
  /** The comment sent first (`: <hello>`). */
  hello: string;
  /** Ends the stream when aborted (the request's signal: its client went away). */
  signal?: AbortSignal | undefined;
  /** Milliseconds between two keep-alive comments (default 15,000). */
  heartbeatMs?: number;
  /** A reader that leaves more than this many bytes unread is cut off (default 1,000,000). */
  maxBufferedBytes?: number;
}

const HEARTBEAT_MS = 15_000;
const MAX_BUFFERED_BYTES = 1_000_000;

/**
 * A `text/event-stream` body. `open` subscribes to whatever it streams and returns the function
 * that unsubscribes, called once whichever way the stream ends.
 */
export function eventStream(open: (sink: EventSink) => () => void, options: EventStreamOptions): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let ended = false;
  let unsubscribe: (() => void) | null = null;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stop = (): void => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    options.signal?.removeEventListener('abort', onAbort);
    unsubscribe?.();
  };
  const write = (text: string): boolean => {
    if (ended) return false;
    if ((controller.desiredSize ?? 0) <= 0) {
      sink.cut('The reader fell too far behind.');
      return false;
    }
    controller.enqueue(encoder.encode(text));
    return true;
  };
  const sink: EventSink = {
    send: (data, event) => write(`${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`),
    close() {
      if (ended) return;
      stop();
      controller.close();
    },
    cut(reason) {
      if (ended) return;
      stop();
      controller.error(new Error(reason));
    },
  };
  const onAbort = (): void => sink.close();
  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        controller.enqueue(encoder.encode(`: ${options.hello}\n\n`));
        if (options.signal?.aborted) return void sink.close();
        options.signal?.addEventListener('abort', onAbort, { once: true });
        heartbeat = setInterval(() => write(': ping\n\n'), options.heartbeatMs ?? HEARTBEAT_MS);
        (heartbeat as { unref?: () => void }).unref?.();
        const off = open(sink);
        // `open` may have ended the stream already (a reader no longer allowed).
        if (ended) off();
        else unsubscribe = off;
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: options.maxBufferedBytes ?? MAX_BUFFERED_BYTES, size: (chunk) => chunk.byteLength },
  );
}
