// Cold start (issue 6): `import('pix-usdt')` plus constructing a client, over a bare Node start,
// next to Stripe's and OpenAI's SDKs. Each case is a fresh process; rounds interleave the cases
// and the median counts. Uses the built package (dist/), as partners get it. Target: under 20 ms.
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

/** Median milliseconds over a bare Node start for each SDK. */
export async function run(rounds = 15): Promise<Array<{ name: string; ms: number; overBareMs: number }>> {
  const samples = new Map(CASES.map((c) => [c.name, [] as number[]]));
  for (const c of CASES) once(c.script); // warm the file system cache
  for (let r = 0; r < rounds; r++) for (const c of CASES) samples.get(c.name)!.push(once(c.script));
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const bare = median(samples.get('bare node')!);
  const figures = CASES.map((c) => {
    const ms = median(samples.get(c.name)!);
    return { name: c.name, ms, overBareMs: ms - bare };
  });
  console.log('\nCold start (median of fresh processes)');
  for (const f of figures) console.log(`  ${f.name.padEnd(12)} ${f.ms.toFixed(1).padStart(7)} ms  (+${f.overBareMs.toFixed(1)} ms over bare node)`);
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
