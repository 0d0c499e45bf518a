// Issue 22's guard, structural (no timing): V8's precise coverage counts every function call
// during offramp lifecycles through the client and sandbox.fetch. Observers nobody listens to
// (the inspector's request log and moves, persistence's journal, the real-time alarm) must not be
// called at all; the open inspector shows the same counter seeing them, so the check can fail.
import { Session } from 'node:inspector/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';

interface FunctionCoverage {
  functionName: string;
  ranges: Array<{ startOffset: number; endOffset: number; count: number }>;
}
interface ScriptCoverage {
  url: string;
  functions: FunctionCoverage[];
}

// Files whose every function is an idle observer's work, and observer functions in shared files.
const IDLE_FILES = [/src\/sandbox\/inspector\/inspection\.ts/, /src\/sandbox\/core\/snapshot\.ts/, /src\/sandbox\/core\/alarm\.ts/];
const IDLE_FUNCTIONS: Array<[RegExp, RegExp]> = [
  [/src\/sandbox\/http\/request-log\.ts/, /^(add|record|idOf|idInBody|recent)$/],
  [/src\/sandbox\/http\/app\.ts/, /^#log$/],
  [/src\/sandbox\/core\/platform\.ts/, /^(changed|#wakeLater|#realDue)$/],
];

const session = new Session();

async function lifecycles(open: boolean, count: number): Promise<{ calls: Map<string, number>; files: string[] }> {
  const sandbox = createSandbox({ now: '2026-01-01T00:00:00Z', seed: 'idle', quoteRateLimit: 0 });
  if (open) void sandbox.inspector;
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const user = await client.users.create({ external_id: 'idle', name: 'Idle', document_type: 'cpf', document_number: '52998224725' });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const one = async (): Promise<void> => {
    const quote = await client.quotes.create({ user_id: user.id, source_currency: 'USDT', target_currency: 'BRL', source_amount: '10.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' });
    const conv = await client.quotes.accept(quote.id);
    await client.testHelpers.conversions.simulateOfframpDeposit(conv.id, { settle: true });
    expect((await client.conversions.retrieve(conv.id)).status).toBe('completed');
  };
  await one();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage'); // resets the counters: only what follows counts
  for (let i = 0; i < count; i++) await one();
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  await sandbox.close();
  // Calls of each idle observer function (`file#name`): a function's first range counts its calls.
  const calls = new Map<string, number>();
  const files = result.map((script) => script.url.replace(/^.*\/src\//, 'src/').replace(/\?.*$/, ''));
  for (const script of result) {
    const file = IDLE_FILES.find((f) => f.test(script.url));
    const named = IDLE_FUNCTIONS.filter(([f]) => f.test(script.url));
    if (file === undefined && named.length === 0) continue;
    for (const fn of script.functions) {
      if (fn.functionName === '') continue; // the module's top level
      if (file === undefined && !named.some(([, name]) => name.test(fn.functionName))) continue;
      const key = `${script.url.replace(/^.*\/src\//, 'src/').replace(/\?.*$/, '')}#${fn.functionName}`;
      calls.set(key, (calls.get(key) ?? 0) + (fn.ranges[0]?.count ?? 0));
    }
  }
  // A function never called may be absent (V8 reports it inside its parent's range, count 0).
  return { calls, files };
}

const working = (calls: Map<string, number>): string[] => [...calls].filter(([, n]) => n > 0).map(([name, n]) => `${name} x${n}`);

describe('idle observers (issue 22)', () => {
  afterEach(() => {
    try {
      session.disconnect();
    } catch {
      // already disconnected
    }
  });

  it('do no work during lifecycles: no request log entry, no move, no journal, no alarm', async () => {
    const { calls, files } = await lifecycles(false, 5);
    // The counter sees the files on the path (a rename would otherwise make the check vacuous);
    // a file none of whose functions ran may be left out of the report, as counts of zero.
    for (const file of ['src/sandbox/http/request-log.ts', 'src/sandbox/http/app.ts', 'src/sandbox/core/platform.ts']) {
      expect(files).toContain(file);
    }
    expect(working(calls)).toEqual([]);
  });

  it('are counted once someone listens: the open inspector records each request and move', async () => {
    const { calls } = await lifecycles(true, 5);
    expect(calls.get('src/sandbox/http/request-log.ts#record')).toBe(20);
    expect(calls.get('src/sandbox/http/app.ts##log')).toBe(20);
    // quote -> awaiting_deposit, funded, completed: three moves a lifecycle.
    expect(calls.get('src/sandbox/core/platform.ts#changed')).toBe(15);
  });
});
