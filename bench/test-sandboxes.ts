// A suite that makes a test sandbox per test (issue 25): 5,000 createTestSandbox, each with
// pending timers (a quote's expiry, a conversion's deposit window and its quote's), each closed
// after its "test". The heap must return to where it started; the control holds all 5,000 to
// show what a leak would cost. Run: node --expose-gc --import tsx bench/test-sandboxes.ts
import { createConversion, createTestSandbox, type TestSandbox } from '../src/testing/index.js';
import { heapReturn } from './heap.js';

export const COUNT = 5_000;

async function make(i: number): Promise<TestSandbox> {
  const sandbox = createTestSandbox({ now: '2026-01-01T00:00:00Z', seed: i });
  // An accepted quote: the deposit window's timer (15 min) and the quote's (5 min) stay pending.
  await createConversion(sandbox.client, { status: 'awaiting_deposit', events: false });
  return sandbox;
}

export function run(): ReturnType<typeof heapReturn> {
  return heapReturn(COUNT, make, (sandbox) => sandbox.close());
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await run();
  const mb = (n: number | null): string => (n === null ? 'n/a (--expose-gc)' : `${(n / 1048576).toFixed(1)} MB`);
  console.log(`${r.count} test sandboxes (pending timers: a deposit window and a quote expiry each), made and closed in ${r.seconds.toFixed(1)} s`);
  console.log(`heap: start ${mb(r.startBytes)}, end ${mb(r.endBytes)}, all ${r.count} held ${mb(r.heldBytes)}; real timers ${r.timersBefore} -> ${r.timersAfter}`);
}
