/**
 * The app's stages run in order without the runner's loop while no plugin stage or middleware
 * would run (http/stages.ts `inOrder`, issue 34): the same sequence of requests through a sandbox
 * on that path and through one whose pass-through middleware keeps every request in the loop
 * gives the same answers (status, every header, body bytes, request ids), the same request log
 * and the same events. The sequence covers what the straight path decides itself (a read by id,
 * a replay) and every way off it (a refusal at each check, a query, a path id that is not one, a
 * reused or expired Idempotency-Key, a fault plan in force).
 */
import { describe, expect, it } from 'vitest';
import { type Sandbox, createSandbox } from '../../../src/sandbox/index.js';
import { RequestLog, idInBody } from '../../../src/sandbox/http/request-log.js';
import { cpf, onrampBody } from '../../support/fixtures.js';

const NOW = '2026-05-01T00:00:00Z';
const ORIGIN = 'https://api.sandbox.test';

interface Step {
  method: string;
  path: string;
  key?: 'default' | 'reader' | 'none' | 'malformed' | 'unknown';
  idempotencyKey?: string;
  body?: unknown;
  /** Run before the request, on each sandbox. */
  before?: (sandbox: Sandbox) => unknown;
}

const user = (n: number): unknown => ({ external_id: `q${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });

function sandboxes(): { quiet: Sandbox; loop: Sandbox; readers: [string, string] } {
  const make = (): Sandbox => createSandbox({ seed: 'quiet-path', now: NOW, idempotencyTtlSeconds: 3600, quoteRateLimit: 2 });
  const quiet = make();
  const loop = make();
  // A middleware that changes nothing, but is not idle: the runner's loop takes every request.
  loop.use('pass-through', (_call, next) => next());
  void quiet.inspector;
  void loop.inspector;
  const readers: [string, string] = [quiet.createTenant({ capabilities: ['users:read'] }).apiKey, loop.createTenant({ capabilities: ['users:read'] }).apiKey];
  return { quiet, loop, readers };
}

async function send(sandbox: Sandbox, reader: string, step: Step, ids: Record<string, string>): Promise<{ status: number; headers: Array<[string, string]>; body: string }> {
  const headers: Record<string, string> = {};
  const key = step.key ?? 'default';
  if (key === 'default') headers['authorization'] = `Bearer ${sandbox.apiKey}`;
  if (key === 'reader') headers['authorization'] = `Bearer ${reader}`;
  if (key === 'malformed') headers['authorization'] = 'Bearer sk_test_short';
  if (key === 'unknown') headers['authorization'] = `Bearer sk_test_${'z9'.repeat(16)}`;
  if (step.idempotencyKey !== undefined) headers['idempotency-key'] = step.idempotencyKey;
  const init: RequestInit = { method: step.method, headers };
  if (step.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(step.body === 'onramp' ? onrampBody(ids['user'] as string) : step.body);
  }
  const path = step.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? name);
  const response = await sandbox.fetch(`${ORIGIN}${path}`, init);
  return { status: response.status, headers: [...response.headers], body: await response.text() };
}

describe('the stages in order without the loop (issue 34)', () => {
  it('answers, logs and emits as the runner does, request by request', async () => {
    const { quiet, loop, readers } = sandboxes();
    expect(quiet.apiKey).toBe(loop.apiKey);
    const ids: Record<string, string> = { unknown: '00000000-0000-4000-8000-000000000000' };
    const steps: Step[] = [
      { method: 'POST', path: '/v1/users', idempotencyKey: 'k1', body: user(1) },
      { method: 'POST', path: '/v1/users', idempotencyKey: 'k1', body: user(1) },
      { method: 'POST', path: '/v1/users', idempotencyKey: 'k1', body: user(2) },
      { method: 'POST', path: '/v1/users', body: user(3) },
      { method: 'POST', path: '/v1/users', idempotencyKey: 'x'.repeat(256), body: user(3) },
      { method: 'GET', path: '/v1/users/{user}' },
      { method: 'GET', path: '/v1/users/{user}' },
      { method: 'GET', path: '/v1/users/{user}?expand=wallet' },
      { method: 'GET', path: '/v1/users/not-a-uuid' },
      { method: 'GET', path: '/v1/users/{unknown}' },
      { method: 'GET', path: '/v1/users?limit=1' },
      { method: 'GET', path: '/v1/users' },
      { method: 'GET', path: '/v1/users/{user}/wallet' },
      { method: 'GET', path: '/v1/users/{user}', key: 'none' },
      { method: 'GET', path: '/v1/users/{user}', key: 'malformed' },
      { method: 'GET', path: '/v1/users/{user}', key: 'unknown' },
      { method: 'GET', path: '/v1/nothing/here' },
      { method: 'DELETE', path: '/v1/nothing/here', idempotencyKey: 'k9' },
      { method: 'GET', path: '/v1/users/{user}', key: 'reader' },
      { method: 'POST', path: '/v1/users', key: 'reader', idempotencyKey: 'k3', body: user(4) },
      { method: 'PATCH', path: '/v1/users/{user}', idempotencyKey: 'k4', body: { name: 'Renamed' } },
      { method: 'PATCH', path: '/v1/users/{user}', idempotencyKey: 'k4', body: { name: 'Renamed' } },
      { method: 'GET', path: '/v1/users/{user}' },
      // A rate-limited route: two quotes a minute, the third refused (429), its replay not counted.
      { method: 'POST', path: '/v1/test_helpers/users/{user}/kyc', body: { status: 'approved' } },
      { method: 'POST', path: '/v1/quotes', idempotencyKey: 'q1', body: 'onramp' },
      { method: 'POST', path: '/v1/quotes', idempotencyKey: 'q1', body: 'onramp' },
      { method: 'POST', path: '/v1/quotes', idempotencyKey: 'q2', body: 'onramp' },
      { method: 'POST', path: '/v1/quotes', idempotencyKey: 'q3', body: 'onramp' },
      { method: 'GET', path: '/v1/quotes/{quote}' },
      // A fault plan in force: both sandboxes run the loop; the plan answers in both.
      { method: 'GET', path: '/v1/users/{user}', before: (s) => void s.faults.add({ match: 'GET /v1/users/:id', nth: 1, fault: { type: 'error', code: 'internal_error' } }) },
      { method: 'GET', path: '/v1/users/{user}', before: (s) => s.faults.clear() },
      // The window passes: the key's record expires before its lookup, and the request runs anew.
      { method: 'POST', path: '/v1/users', idempotencyKey: 'k1', body: user(1), before: (s) => s.clock.advance({ hours: 2 }) },
      { method: 'POST', path: '/v1/users', idempotencyKey: 'k1', body: user(1) },
    ];
    for (const [i, step] of steps.entries()) {
      await step.before?.(quiet);
      await step.before?.(loop);
      const a = await send(quiet, readers[0], step, ids);
      const b = await send(loop, readers[1], step, ids);
      expect({ step: i, ...a }).toEqual({ step: i, ...b });
      if (i === 0) ids['user'] = (JSON.parse(a.body) as { id: string }).id;
      if (step.path === '/v1/quotes' && a.status === 201) ids['quote'] ??= (JSON.parse(a.body) as { id: string }).id;
    }
    // Both paths answered each kind they are meant to: a replay, a read by id, refusals.
    const strip = (s: Sandbox) => s.inspector.requests().map(({ at: _at, latency_ms: _latency, ...entry }) => entry);
    const entries = strip(quiet);
    expect(entries).toEqual(strip(loop));
    expect(entries).toHaveLength(steps.length);
    // Newest first: the expired key ran anew (its external_id is taken now: 409), then replayed that.
    expect(entries.slice(0, 2).map((e) => [e.status, e.replayed])).toEqual([[409, true], [409, false]]);
    expect(entries.filter((e) => e.replayed)).toHaveLength(4);
    expect(entries.map((e) => e.status)).toEqual(expect.arrayContaining([200, 201, 400, 401, 403, 404, 409, 429, 500]));
    expect(quiet.events().map((e) => [e.id, e.type])).toEqual(loop.events().map((e) => [e.id, e.type]));
  });
});

describe("the request log's answered id, remembered for the last body", () => {
  it('is what idInBody reads, for a body seen again, a new one, a path id it opens with or not', () => {
    const log = new RequestLog();
    const a = '{"id":"usr_1","name":"A"}';
    const b = `${'{"id":"usr_2"'},"name":"B"}`;
    const cases: Array<[number, string | null, string | undefined]> = [
      [200, a, undefined],
      [200, a, undefined],
      [200, b, 'usr_2'],
      [200, b, 'usr_2'],
      [200, a, 'usr_9'],
      [404, a, undefined],
      [200, '{"id":"q\\"x"}', 'q\\"x'],
      [200, null, undefined],
      [201, '[1]', undefined],
    ];
    for (const [status, body, named] of cases) expect([status, body, log.idOf(status, body, named)]).toEqual([status, body, idInBody(status, body)]);
  });
});
