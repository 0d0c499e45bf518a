/**
 * One fuzzing campaign: `count` generated malformed requests straight into
 * `sandbox.handle(new Request(...))`. Every answer must be a 4xx error envelope with a request
 * id (test/fuzz/envelope.ts), never a 500, never a rejected promise, and the visible state must
 * be unchanged afterwards (test/fuzz/world.ts says what that means).
 */
import { expect } from 'vitest';
import { ALL_ROUTES } from '../../src/sandbox/routes.js';
import { envelopeProblem } from './envelope.js';
import { type FuzzCase, Generator } from './generator.js';
import { createFuzzWorld, visibleState } from './world.js';

function describeCase(c: FuzzCase): string {
  const cut = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n)}...(${s.length})` : s);
  const headers = c.headers.map(([k, v]) => `${k}: ${cut(v, 60)}`).join('; ');
  return `[${c.kind}] ${c.method} ${cut(c.url, 120)} {${headers}}${c.body === undefined ? '' : ` body ${cut(c.body, 80)}`}`;
}

export async function campaign(seed: number, count: number): Promise<void> {
  const { sandbox, keys } = await createFuzzWorld();
  const before = visibleState(sandbox);
  const generator = new Generator(seed, keys, ALL_ROUTES);
  const problems: string[] = [];
  const statuses = new Map<string, number>();
  let unconstructible = 0;
  for (let i = 0; i < count; i++) {
    const c = generator.next();
    let request: Request;
    try {
      request = new Request(c.url, { method: c.method, headers: c.headers, ...(c.body === undefined ? {} : { body: c.body }) });
    } catch {
      // Not a request a client could send (e.g. a header value the Headers class refuses).
      unconstructible++;
      continue;
    }
    let problem: string | null;
    try {
      const response = await sandbox.handle(request);
      const key = `${c.kind} ${response.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      problem = await envelopeProblem(response);
    } catch (error) {
      problem = `threw ${String(error)}`;
    }
    if (problem !== null && problems.length < 20) problems.push(`#${i} ${problem}: ${describeCase(c)}`);
  }
  if (process.env['FUZZ_STATS']) console.log(Object.fromEntries([...statuses.entries()].sort()));
  expect(problems, `seed ${seed}: replay with FUZZ_SEED=${seed}`).toEqual([]);
  expect(unconstructible, 'the generator makes valid web Requests').toBeLessThan(count / 100);
  expect(visibleState(sandbox) === before, `seed ${seed}: the visible state changed`).toBe(true);
  // Every kind of defect was exercised.
  const kinds = new Set([...statuses.keys()].map((k) => k.split(' ')[0]));
  expect([...kinds].sort()).toEqual(['auth', 'body', 'capability', 'id', 'method', 'query', 'route']);
}
