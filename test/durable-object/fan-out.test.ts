/**
 * A view across tenants is a bounded fan-out (src/durable-object/fan-out.ts): a few objects at a
 * time, each within its time limit, a late or failing one left out by name; and many objects'
 * event streams merged into one, through the sandbox's event-stream writer.
 */
import { describe, expect, it } from 'vitest';
import { fanOut, mergedFeed } from '../../src/durable-object/fan-out.js';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

describe('fanOut', () => {
  it('asks at most `concurrency` at once, keeps the order, and leaves out what fails or is late', async () => {
    let inFlight = 0;
    let most = 0;
    const aborted: number[] = [];
    const items = Array.from({ length: 10 }, (_, i) => i);
    const out = await fanOut(
      items,
      async (i, signal) => {
        inFlight++;
        most = Math.max(most, inFlight);
        signal.addEventListener('abort', () => aborted.push(i));
        try {
          if (i === 3) throw new Error('down');
          await sleep(i === 7 ? 5_000 : 10, signal);
          return i * 2;
        } finally {
          inFlight--;
        }
      },
      { concurrency: 3, timeoutMs: 200 },
    );
    expect(most).toBe(3);
    expect(out.map((g) => g.value)).toEqual([0, 2, 4, null, 8, 10, 12, null, 16, 18]);
    expect(aborted).toEqual([7]);
  });
});

function source(frames: string[], keepOpen = false): (signal: AbortSignal) => Promise<Response> {
  return async (signal) => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(': hello\n\n'));
        for (const frame of frames) controller.enqueue(encoder.encode(frame));
        if (!keepOpen) controller.close();
        signal.addEventListener('abort', () => controller.error(new Error('aborted')));
      },
    });
    return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  };
}

describe('mergedFeed', () => {
  it("writes every source's events, names kept, comments dropped, and survives a failing source", async () => {
    const controller = new AbortController();
    const stream = mergedFeed(
      [
        source(['data: {"tenant_id":"a","n":1}\n\n', 'event: state\ndata: {"tenant_id":"a","n":2}\n\n'], true),
        () => Promise.reject(new Error('object down')),
        source([': ping\n\n', 'data: {"tenant_id":"b","n":1}\n\n']),
      ],
      'merged',
      controller.signal,
    );
    const reader = new Response(stream).body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while ((text.match(/data: /g) ?? []).length < 3) text += (await reader.read()).value ?? '';
    controller.abort();
    expect(text.startsWith(': merged\n\n')).toBe(true);
    expect(text).toContain('data: {"tenant_id":"a","n":1}\n\n');
    expect(text).toContain('event: state\ndata: {"tenant_id":"a","n":2}\n\n');
    expect(text).toContain('data: {"tenant_id":"b","n":1}\n\n');
    expect(text).not.toContain('ping');
  });
});
