// A tiny measuring kit for side-by-side figures: warm up, then run each case for a fixed time,
// interleaving the cases in rounds so that a noisy machine hits them alike.

/** One measured case. */
export interface Case {
  name: string;
  fn: () => Promise<unknown> | unknown;
}

/** The figure of one case: operations per second and microseconds per operation (median round). */
export interface Figure {
  name: string;
  opsPerSecond: number;
  microsPerOp: number;
}

/**
 * How a round is timed: `wall` (elapsed time, the default) or `cpu` (this process's CPU time,
 * `process.cpuUsage`): on a machine shared with other work, time spent waiting for a core is not
 * counted, which makes an A/B comparison of two builds of the same code path far steadier.
 */
export type Clock = 'wall' | 'cpu';

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

async function round(fn: Case['fn'], ms: number, clock: Clock = 'wall'): Promise<number> {
  let ops = 0;
  const end = performance.now() + ms;
  const now = clock === 'cpu' ? cpuMs : () => performance.now();
  const started = now();
  while (performance.now() < end) {
    // Batches of 16 keep the timer out of the measurement.
    for (let i = 0; i < 16; i++) await fn();
    ops += 16;
  }
  return ops / ((now() - started) / 1000);
}

/** Measures the cases side by side: `rounds` interleaved rounds of `roundMs` each; the median round counts. */
export async function compare(cases: Case[], { rounds = 5, roundMs = 400, warmupMs = 300, clock = 'wall' as Clock } = {}): Promise<Figure[]> {
  for (const c of cases) await round(c.fn, warmupMs, clock);
  const samples = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let r = 0; r < rounds; r++) for (const c of cases) samples.get(c.name)!.push(await round(c.fn, roundMs, clock));
  return cases.map((c) => {
    const sorted = samples.get(c.name)!.sort((a, b) => a - b);
    const ops = sorted[Math.floor(sorted.length / 2)]!;
    return { name: c.name, opsPerSecond: ops, microsPerOp: 1e6 / ops };
  });
}

/** Prints figures as a table, with each one's ratio to the first. */
export function table(title: string, figures: Figure[]): void {
  console.log(`\n${title}`);
  const base = figures[0]!;
  for (const f of figures) {
    const ratio = base.microsPerOp === 0 ? 1 : f.microsPerOp / base.microsPerOp;
    console.log(`  ${f.name.padEnd(44)} ${Math.round(f.opsPerSecond).toString().padStart(9)} ops/s ${f.microsPerOp.toFixed(1).padStart(9)} us/op  x${ratio.toFixed(2)}`);
  }
}
