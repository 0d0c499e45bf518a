// No neighbour can stall another (issue 21): tenant A's fault plan with the worst `match` a plan
// may have (`POST` and runs of `/**` up to the 500-character limit, then `/zzz`: it compiled to a
// regex that backtracked for 68 s on one 5-segment path) costs tenant B's requests nothing
// measurable. One real server on loopback; B sends GET /v1/users one at a time and its latency is
// taken in three phases, interleaved in rounds:
// - alone: A sends nothing;
// - A busy, trivial plan: A sends POSTs on a 5-segment path against a plan `POST /v1/nothing`;
// - A busy, worst plan: the same POSTs against the worst plan.
// The verdict compares the last two (the same load from A; only the pattern differs).
// Also: one match of the worst pattern against that path, in microseconds.
// Run: npx tsx bench/neighbours.ts
import { startServer } from '../src/server/http/start.js';
import { PathPattern } from '../src/sandbox/http/path.js';

const ROUNDS = 4;
const PER_ROUND = 250;
const A_IN_FLIGHT = 4;
const WORST = `POST /${Array.from({ length: 163 }, () => '**').join('/')}/zzz`;
const PATH = '/v1/quotes/5a2d3c4e-0000-4000-8000-000000000000/accept';

type Phase = 'alone' | 'trivial' | 'worst';

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

export async function run(): Promise<{ pattern: number; matchMicros: number; phases: Array<{ phase: Phase; p50: number; p99: number; aRequests: number }> }> {
  if (WORST.length > 500) throw new Error(`the worst pattern is ${WORST.length} characters; a plan allows 500`);
  const server = await startServer({ port: 0, host: '127.0.0.1', sandbox: { seed: 21 } }, () => undefined);
  try {
    const call = async (key: string, method: string, path: string, body?: unknown): Promise<Response> =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const keyOf = async (): Promise<string> => ((await (await call(server.sandbox.apiKey, 'POST', '/v1/test_helpers/tenants', {})).json()) as { api_key: string }).api_key;
    const a = await keyOf();
    const b = await keyOf();
    const plan = async (match: string): Promise<void> => {
      await call(a, 'DELETE', '/v1/test_helpers/faults');
      const added = await call(a, 'POST', '/v1/test_helpers/faults', { match, fault: { type: 'error', code: 'internal_error' } });
      if (added.status !== 201) throw new Error(`the plan was refused: ${added.status} ${await added.text()}`);
    };
    const samples: Record<Phase, number[]> = { alone: [], trivial: [], worst: [] };
    const aCount: Record<Phase, number> = { alone: 0, trivial: 0, worst: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (const phase of ['alone', 'trivial', 'worst'] as const) {
        if (phase !== 'alone') await plan(phase === 'worst' ? WORST : 'POST /v1/nothing');
        let stop = false;
        const loops =
          phase === 'alone'
            ? []
            : Array.from({ length: A_IN_FLIGHT }, async () => {
                while (!stop) {
                  await (await call(a, 'POST', PATH, {})).text();
                  aCount[phase]++;
                }
              });
        for (let i = 0; i < PER_ROUND; i++) {
          const t = performance.now();
          const res = await call(b, 'GET', '/v1/users?limit=1');
          await res.text();
          if (res.status !== 200) throw new Error(`B got ${res.status}`);
          samples[phase].push(performance.now() - t);
        }
        stop = true;
        await Promise.all(loops);
      }
    }
    const pattern = new PathPattern(WORST.slice('POST '.length));
    const n = 100_000;
    const t = performance.now();
    for (let i = 0; i < n; i++) pattern.test(PATH);
    const matchMicros = ((performance.now() - t) * 1000) / n;
    const phases = (['alone', 'trivial', 'worst'] as const).map((phase) => {
      const sorted = samples[phase].sort((x, y) => x - y);
      return { phase, p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), aRequests: aCount[phase] };
    });
    for (const p of phases) console.log(`B's GET /v1/users, ${p.phase.padEnd(8)}: p50 ${p.p50.toFixed(2)} ms, p99 ${p.p99.toFixed(2)} ms (A sent ${p.aRequests})`);
    console.log(`one match of the ${WORST.length}-character pattern: ${matchMicros.toFixed(2)} us`);
    return { pattern: WORST.length, matchMicros, phases };
  } finally {
    server.forceClose();
    await server.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
