// Does a suite that makes and disposes many things return to its starting heap? Shared by the
// benches that ask it (test sandboxes here; raw createSandbox may use it the same way).
// Needs --expose-gc (npm run bench passes it): without it the figures are null.

/** What one run of {@link heapReturn} measured. */
export interface HeapReturn {
  count: number;
  /** Heap used after a full GC, before, after the suite, and with every item still referenced (a leak's cost). */
  startBytes: number | null;
  endBytes: number | null;
  heldBytes: number | null;
  /** Active real timers (Node's `Timeout` resources) before and after. */
  timersBefore: number;
  timersAfter: number;
  seconds: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

async function settledHeap(): Promise<number | null> {
  if (gc === undefined) return null;
  // Several rounds: finalizers and weak references clear over more than one collection.
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

/**
 * Runs `count` times `make` then `dispose` one after the other (as a suite's tests do), then the
 * same `count` kept alive, and answers the heap at each end.
 */
export async function heapReturn<T>(count: number, make: (i: number) => Promise<T>, dispose: (item: T) => Promise<void>): Promise<HeapReturn> {
  // Warm-up: modules, JIT and caches that any first use allocates are not a leak (they grow
  // slower and slower over the first thousand rounds, then stay).
  for (let i = 0; i < Math.min(1_000, count); i++) await dispose(await make(i));
  const timersBefore = timers();
  const startBytes = await settledHeap();
  const started = performance.now();
  for (let i = 0; i < count; i++) await dispose(await make(i));
  const seconds = (performance.now() - started) / 1000;
  const endBytes = await settledHeap();
  const timersAfter = timers();
  // The control: the same items held, which is what a leak of every one would cost.
  const held: T[] = [];
  for (let i = 0; i < count; i++) held.push(await make(i));
  const heldBytes = await settledHeap();
  for (const item of held) await dispose(item);
  held.length = 0;
  return { count, startBytes, endBytes, heldBytes, timersBefore, timersAfter, seconds };
}
