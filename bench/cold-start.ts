// Cold start (issue 6): `import('pix-usdt')` plus constructing a client, over a bare Node start,
// next to Stripe's and OpenAI's SDKs. Each case is a fresh process; rounds interleave the cases
// and the median counts. Uses the built package (dist/), as partners get it. Target: under 20 ms.
//
// The figure over a bare start is the median of each round's difference with that round's bare
// start (the process before it): on a shared machine, load drifts between rounds, and pairing
// cancels the drift that a difference of two medians keeps. The spread printed beside it (the
// middle half of the rounds' differences) says how far one figure can be trusted.
//
// Alone: `node --import tsx bench/cold-start.ts [rounds]` (after `npm run build`).
import { execFileSync } from 'node:child_process';

const root = new URL('../', import.meta.url).pathname;

const CASES: Array<{ name: string; script: string }> = [
  { name: 'bare node', script: '' },
  { name: 'pix-usdt', script: "const { PixUsdt } = await import('pix-usdt'); new PixUsdt({ apiKey: 'sk_test_' + 'a'.repeat(32) });" },
  { name: 'stripe', script: "const { default: Stripe } = await import('stripe'); new Stripe('sk_test_abc');" },
  { name: 'openai', script: "const { default: OpenAI } = await import('openai'); new OpenAI({ apiKey: 'sk-abc' });" },
];

function once(script: string): number {
  const start = performance.now();
  execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, stdio: 'ignore' });
  return performance.now() - start;
}

const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;

/** Median milliseconds, and median milliseconds over a bare Node start (paired by round), for each SDK. */
export async function run(rounds = 15): Promise<Array<{ name: string; ms: number; overBareMs: number }>> {
  const samples = new Map(CASES.map((c) => [c.name, [] as number[]]));
  for (const c of CASES) once(c.script); // warm the file system cache
  for (let r = 0; r < rounds; r++) for (const c of CASES) samples.get(c.name)!.push(once(c.script));
  const bare = samples.get('bare node')!;
  const figures = CASES.map((c) => {
    const own = samples.get(c.name)!;
    const over = own.map((ms, r) => ms - bare[r]!);
    return { name: c.name, ms: quantile(own, 0.5), overBareMs: quantile(over, 0.5), spread: [quantile(over, 0.25), quantile(over, 0.75)] as const };
  });
  console.log(`\nCold start (fresh processes, median of ${rounds} interleaved rounds; over bare: paired by round, [middle half])`);
  for (const f of figures) {
    console.log(
      `  ${f.name.padEnd(12)} ${f.ms.toFixed(1).padStart(7)} ms  (+${f.overBareMs.toFixed(1)} ms over bare node [${f.spread[0].toFixed(1)}, ${f.spread[1].toFixed(1)}])`,
    );
  }
  return figures.map(({ name, ms, overBareMs }) => ({ name, ms, overBareMs }));
}

if (import.meta.url === `file://${process.argv[1]}`) await run(process.argv[2] === undefined ? undefined : Number(process.argv[2]));
