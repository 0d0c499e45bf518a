/**
 * Real timers, as this module found them when it loaded: a test suite that turns on fake timers
 * afterwards must not freeze webhook deliveries, retries of real-time clocks, injected latency
 * or the timeout of `nextEvent`. The one place the sandbox captures them.
 * @module
 */

/** `setTimeout` as it was at load. */
export const realSetTimeout = globalThis.setTimeout;
/** `clearTimeout` as it was at load. */
export const realClearTimeout = globalThis.clearTimeout;

/** Resolves after `ms` of real time. */
export const realSleep = (ms: number): Promise<void> => new Promise((resolve) => realSetTimeout(resolve, ms));
