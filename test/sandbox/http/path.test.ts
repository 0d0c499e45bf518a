/**
 * Issue 21: path patterns (fault plans' `match`, the inspector's actions, the router's reading of
 * a path) are matched segment by segment, never by a regex built from user input. The same
 * answers as the former regex on small inputs (a property), and a cost counted in segment
 * comparisons that stays linear where the regex backtracked combinatorially.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type MatchSteps, PathPattern, splitPath } from '../../../src/sandbox/http/path.js';
import { TrieRouter } from '../../../src/sandbox/http/router.js';
import { createSandbox } from '../../../src/sandbox/index.js';

// The former compilation (plugins/faults/plans.ts before issue 21), as the reference semantics.
function regexOf(pattern: string): RegExp {
  const parts = pattern.split('/').slice(1).map((segment) => {
    if (segment === '**') return '(?:/[^/]+)*';
    if (segment === '*' || segment.startsWith(':')) return '/[^/]+';
    return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
  });
  return new RegExp(`^${parts.join('')}/?$`);
}

const steps = (pattern: string, path: string): number => {
  const counter: MatchSteps = { steps: 0 };
  new PathPattern(pattern).test(path, counter);
  return counter.steps;
};

const WORST = `/${Array.from({ length: 100 }, () => '**').join('/')}/zzz`;

describe('PathPattern', () => {
  it('matches literals, `:name` and `*` (one segment), `**` (any number, zero included), a trailing slash', () => {
    const cases: Array<[string, string, boolean]> = [
      ['/v1/quotes/:id/accept', '/v1/quotes/abc/accept', true],
      ['/v1/quotes/:id/accept', '/v1/quotes/accept', false],
      ['/v1/quotes/:id/accept', '/v1/quotes/abc/accept/', true],
      ['/v1/**', '/v1', true],
      ['/v1/**', '/v1/users/1/wallet', true],
      ['/v1/**', '/v2/users', false],
      ['/**/wallet', '/v1/users/1/wallet', true],
      ['/**/wallet', '/v1/users/1/wallets', false],
      ['/v1/*/:id', '/v1/users/1', true],
      ['/v1/*/:id', '/v1/users', false],
      ['/**/users/**/kyc', '/v1/test_helpers/users/1/kyc', true],
      ['/**/users/**/kyc', '/v1/users/kyc', true],
      ['/a/**/b/**/b', '/a/b', false],
      ['/a/**/b/**/b', '/a/b/b', true],
      [WORST, '/v1/quotes/abc/accept/x', false],
      [WORST, '/v1/zzz', true],
    ];
    for (const [pattern, path, expected] of cases) expect(new PathPattern(pattern).test(path), `${pattern} ${path}`).toBe(expected);
    expect(new PathPattern('/v1/quotes/:id/accept').match('/v1/quotes/q%2D1/accept')).toEqual({ id: 'q-1' });
  });

  it('answers as the former regex on every small pattern and path (property)', () => {
    const segment = fc.constantFrom('a', 'b', 'v1', '*', '**', ':id');
    const pathSegment = fc.constantFrom('a', 'b', 'v1', 'x');
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 7 }), fc.array(pathSegment, { maxLength: 7 }), fc.boolean(), (p, s, slash) => {
        const pattern = `/${p.join('/')}`;
        const path = `/${s.join('/')}${slash && s.length > 0 ? '/' : ''}`;
        expect(new PathPattern(pattern).test(path), `${pattern} ${path}`).toBe(regexOf(pattern).test(path));
      }),
      { numRuns: 3000, seed: 21 },
    );
  });

  it('is linear: a run of `**` costs what one does, and the cost grows with the path at most as (path + 1) x pattern', () => {
    const path = '/v1/quotes/abc/accept/x';
    // The issue's pattern (309 characters) and the same at the 500-character limit of a plan.
    const atLimit = `/${Array.from({ length: 165 }, () => '**').join('/')}/zzz`;
    expect(atLimit.length).toBeLessThanOrEqual(500);
    const one = steps('/**/zzz', path);
    expect(steps(WORST, path)).toBe(one);
    expect(steps(atLimit, path)).toBe(one);
    expect(one).toBeLessThanOrEqual(1);
    // Alternating `**` and a literal that never matches: each block is placed once, left to right.
    const alternating = `/${Array.from({ length: 120 }, () => '**/a').join('/')}/**/zzz`;
    const long = `/${Array.from({ length: 200 }, () => 'a').join('/')}`;
    expect(steps(alternating, long)).toBeLessThanOrEqual(201 + 121);
    // Doubling the path at most doubles the cost, for any pattern (the former regex: exponential in the number of `**`).
    const patterns = [WORST, alternating, '/**/a/b/a/b/c/**', '/*/*/*/**/*/*/*/zzz', '/**/a/*/a/*/a/*/b'];
    for (const pattern of patterns) {
      const segments = new PathPattern(pattern).source.split('/').filter((s) => s !== '').length;
      for (const n of [8, 16, 32, 64, 128]) {
        const p = `/${Array.from({ length: n }, (_, i) => (i % 3 === 2 ? 'b' : 'a')).join('/')}`;
        const cost = steps(pattern, p);
        expect(cost, `${pattern.slice(0, 40)} over ${n} segments`).toBeLessThanOrEqual((n + 1) * segments);
        const doubled = `${p}${p}`;
        expect(steps(pattern, doubled)).toBeLessThanOrEqual(2 * cost + 2 * segments);
      }
    }
  });

  it('is the router\'s reading of a path: the same segments, decoded; an undecodable segment matches nothing', () => {
    expect(splitPath('/v1//users/a%20b/')).toEqual(['v1', 'users', 'a b']);
    expect(splitPath('/v1/%E0%A4%A')).toBeNull();
    const router = new TrieRouter<string>();
    router.add('GET', '/v1/users/:id', 'user');
    expect(router.match('GET', '/v1//users/a%20b/')).toEqual({ handler: 'user', params: { id: 'a b' } });
    expect(router.match('GET', '/v1/users/%E0%A4%A')).toBeNull();
    expect(new PathPattern('/v1/users/:id').match('/v1//users/a%20b/')).toEqual({ id: 'a b' });
  });

  it('the router walks a path as splitPath cuts it, on every small path (property)', () => {
    const router = new TrieRouter<string>();
    const patterns = ['/v1/users', '/v1/users/:id', '/v1/users/:id/kyc', '/v1/a b/:x', '/v1/%/:x/%'];
    for (const pattern of patterns) router.add('GET', pattern, pattern);
    // The reference: the pattern whose segments splitPath's reading of the path fills.
    const reference = (path: string): { handler: string; params: Record<string, string> } | null => {
      const segments = splitPath(path);
      if (segments === null) return null;
      for (const pattern of patterns) {
        const parts = pattern.split('/').filter((p) => p !== '');
        if (parts.length !== segments.length) continue;
        const params: Record<string, string> = {};
        if (parts.every((p, i) => (p.startsWith(':') ? ((params[p.slice(1)] = segments[i] as string), true) : p === segments[i]))) return { handler: pattern, params };
      }
      return null;
    };
    const piece = fc.constantFrom('', '/', '//', 'v1', 'users', 'kyc', 'a%20b', 'a b', '%25', '%E0%A4%A', '%2F', 'x', '%');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const path = `/${pieces.join('/')}`;
        expect(router.match('GET', path)).toEqual(reference(path));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the worst pattern at the length limit in a fault plan over HTTP; the plan works and other tenants are not concerned', async () => {
    const sandbox = createSandbox({ seed: 'path-worst' });
    const other = sandbox.createTenant();
    const call = (key: string, method: string, path: string, body?: unknown) =>
      sandbox.fetch(path, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const match = `POST ${`/${Array.from({ length: 162 }, () => '**').join('/')}/accept`}`;
    expect(match.length).toBeLessThanOrEqual(500);
    const added = await call(sandbox.apiKey, 'POST', '/v1/test_helpers/faults', { match, fault: { type: 'error', code: 'upstream_unavailable' } });
    expect(added.status).toBe(201);
    expect((await call(sandbox.apiKey, 'POST', '/v1/quotes/5a2d3c4e-0000-4000-8000-000000000000/accept', {})).status).toBe(502);
    expect((await call(other.apiKey, 'POST', '/v1/quotes/5a2d3c4e-0000-4000-8000-000000000000/accept', {})).status).toBe(404);
  });

  it('a tenant holds at most 100 plans over HTTP (each one is looked at on its calls)', async () => {
    const sandbox = createSandbox({ seed: 'path-cap' });
    const post = () =>
      sandbox.fetch('/v1/test_helpers/faults', {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ match: 'GET /v1/nothing', fault: { type: 'network' } }),
      });
    for (let i = 0; i < 100; i++) expect((await post()).status).toBe(201);
    const refused = await post();
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'validation_error', details: { issues: [{ message: expect.stringContaining('at most 100 fault plans') }] } });
    expect(sandbox.faults.list(sandbox.tenantId)).toHaveLength(100);
  });
});
