/**
 * Pacing under the reference's limits: at most `quotesPerMinute` quote creations in any
 * sliding 60 s, and at most `requestsPerSecond` requests in any second.
 * @module
 */
import type { FetchLike } from '../index.js';
import type { PacingOptions } from './types.js';

/** Wraps `fetch` so that it waits before a request that would go over the limits. */
export function pacedFetch(fetch: FetchLike, options: PacingOptions = {}): FetchLike {
  const quotesPerMinute = options.quotesPerMinute ?? 50;
  const requestsPerSecond = options.requestsPerSecond ?? 8;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  const quotes: number[] = [];
  const requests: number[] = [];
  let queue: Promise<void> = Promise.resolve();

  async function admit(isQuote: boolean): Promise<void> {
    for (;;) {
      const t = now();
      while (quotes.length > 0 && (quotes[0] as number) <= t - 60_000) quotes.shift();
      while (requests.length > 0 && (requests[0] as number) <= t - 1_000) requests.shift();
      let wait = 0;
      if (requests.length >= requestsPerSecond) wait = (requests[0] as number) + 1_000 - t;
      if (isQuote && quotes.length >= quotesPerMinute) wait = Math.max(wait, (quotes[0] as number) + 60_000 - t);
      if (wait <= 0) break;
      await sleep(wait);
    }
    const t = now();
    requests.push(t);
    if (isQuote) quotes.push(t);
  }

  return (input, init) => {
    const request = input instanceof Request ? input : undefined;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url, 'http://localhost');
    const isQuote = method === 'POST' && url.pathname.replace(/\/+$/, '').endsWith('/v1/quotes');
    // One admission at a time, so concurrent calls queue in order.
    const admitted = queue.then(() => admit(isQuote));
    queue = admitted.catch(() => undefined);
    return admitted.then(() => fetch(input, init));
  };
}
