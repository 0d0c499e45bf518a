/**
 * Safe by construction: a live key is refused before any request; the run creates only users
 * under its prefix and never names a resource it did not create; quotes are paced under the
 * limit unless pacing is turned off. And the reporters' formats.
 */
import { describe, expect, it } from 'vitest';
import { PixUsdt, type FetchLike } from 'pix-usdt';
import { ConformanceOptionsError, formatJson, formatJunit, formatTable, pacedFetch, recordingFetch, runConformance } from 'pix-usdt/parity';
import { cpf } from '../support/fixtures.js';
import { FAST, sandboxWithReceiver } from './helpers.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

describe('safety', () => {
  it('refuses a sk_live_ key and bad options before sending anything', async () => {
    let calls = 0;
    const fetch: FetchLike = async () => {
      calls++;
      return new Response('{}');
    };
    await expect(runConformance({ baseUrl: 'https://api.example.com', apiKey: `sk_live_${'a'.repeat(32)}`, fetch })).rejects.toThrow(ConformanceOptionsError);
    await expect(runConformance({ baseUrl: 'not a url', apiKey: 'sk_test_x', fetch })).rejects.toThrow(/not an absolute URL/);
    await expect(runConformance({ baseUrl: 'https://x.test', apiKey: 'pk_test_x', fetch })).rejects.toThrow(/must be a sk_test_ key/);
    await expect(runConformance({ baseUrl: 'https://x.test', apiKey: 'sk_test_x', fetch, scenarios: ['nope'] })).rejects.toThrow(/Unknown scenario "nope"/);
    expect(calls).toBe(0);
  });

  it('creates users only under its run prefix and touches no resource it did not create', async () => {
    const { sandbox, received } = sandboxWithReceiver();
    // A partner's existing data, which the run must leave alone.
    const owner = new PixUsdt({ apiKey: sandbox.apiKey, baseUrl: 'https://sandbox.test', fetch: sandbox.fetch });
    const theirs = await owner.users.create({ external_id: 'partner-user', name: 'Partner', document_type: 'cpf', document_number: cpf(77) });
    const recorder = recordingFetch(sandbox.fetch, { redact: { cpf: false } });
    const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: recorder, runId: 'safe-run', receiverUrl: 'https://receiver.test/h', received: () => received, exerciseRateLimit: true });
    expect(report.ok).toBe(true);
    const exchanges = recorder.cassette.exchanges;
    const created = exchanges.filter((e) => e.request.method === 'POST' && e.request.path === '/v1/users').flatMap((e) => {
      try {
        return [(JSON.parse(e.request.body) as { external_id: string }).external_id];
      } catch {
        return []; // the invalid-JSON scenario's body
      }
    });
    expect(created.length).toBeGreaterThan(10);
    expect(created.filter((id) => !id.startsWith('safe-run-'))).toEqual([]);
    // Every id a request names was first given by an answer of this run (or is the all-zero "unknown" id).
    const known = new Set<string>();
    const foreign: string[] = [];
    for (const e of exchanges) {
      for (const id of `${e.request.path} ${e.request.body}`.match(UUID) ?? []) if (!known.has(id) && !/^0{8}-0{4}-[04]0{3}-[08]0{3}-0{11}[01]$/.test(id)) foreign.push(`${e.request.method} ${e.request.path}`);
      if (e.response.status < 300) for (const id of e.response.body.match(UUID) ?? []) if (id !== theirs.id || e.request.method === 'GET') known.add(id);
    }
    expect(foreign).toEqual([]);
    expect(exchanges.some((e) => e.request.method !== 'GET' && `${e.request.path} ${e.request.body}`.includes(theirs.id))).toBe(false);
    expect(await owner.users.retrieve(theirs.id)).toEqual(theirs);
  });

  // Issue 36: a run changed the tenant the user develops on (its users, and about 60 deliveries to its receiver).
  it("runs in a tenant of its own, made for the run and named in the report; the key's tenant gets nothing", async () => {
    const { sandbox, received } = sandboxWithReceiver();
    const owner = new PixUsdt({ apiKey: sandbox.apiKey, baseUrl: 'https://sandbox.test', fetch: sandbox.fetch });
    await owner.webhookEndpoints.create({ url: 'https://partner.example/hooks', event_types: ['*'] });
    const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: sandbox.fetch, scenarios: ['users.', 'conversions.onramp-completed'] });
    expect(report.ok).toBe(true);
    expect(report.tenant).toEqual({ made: true, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(report.tenant.id).not.toBe(sandbox.tenantId);
    expect(formatTable(report)).toContain(`In tenant ${report.tenant.id}, made for this run: the API key's tenant was not touched.`);
    // The key's tenant: no user, no event, no delivery to its endpoint.
    expect((await owner.users.list()).data).toEqual([]);
    await sandbox.webhooks.flush();
    expect(received).toEqual([]);
    expect(sandbox.events().filter((e) => e.type.startsWith('conversion.'))).toEqual([]);
  });

  it("runs in the key's tenant when told to, or when the deployment cannot make tenants, and says so", async () => {
    const { sandbox } = sandboxWithReceiver();
    const owner = new PixUsdt({ apiKey: sandbox.apiKey, baseUrl: 'https://sandbox.test', fetch: sandbox.fetch });
    const told = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: sandbox.fetch, scenarios: ['users.create'], tenant: 'key', runId: 'told' });
    expect(told.tenant).toEqual({ made: false, id: null });
    expect((await owner.users.list()).data.map((u) => u.external_id)).toEqual([expect.stringMatching(/^told-/)]);
    // The platform's own sandbox has no tenants route: 404.
    const platform = sandboxWithReceiver().sandbox;
    const urlOf = (input: Parameters<FetchLike>[0]): string => (typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const noTenants: FetchLike = (input, init) => (urlOf(input).endsWith('/v1/test_helpers/tenants') ? Promise.resolve(Response.json({ code: 'not_found', message: 'Not found.' }, { status: 404 })) : platform.fetch(input, init));
    const fallback = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: platform.apiKey, fetch: noTenants, scenarios: ['users.create'], runId: 'fallback' });
    expect(fallback.ok).toBe(true);
    expect(fallback.tenant).toEqual({ made: false, id: null, note: "the deployment cannot make tenants (POST /v1/test_helpers/tenants answered 404 not_found): the API key's tenant is used" });
    expect(formatTable(fallback)).toContain("In the API key's tenant (the deployment cannot make tenants");
    const platformOwner = new PixUsdt({ apiKey: platform.apiKey, baseUrl: 'https://sandbox.test', fetch: platform.fetch });
    expect((await platformOwner.users.list()).data.map((u) => u.external_id)).toEqual([expect.stringMatching(/^fallback-/)]);
  });

  it('paces quotes under the limit by default, and can be turned off', async () => {
    let now = 0;
    const sleeps: number[] = [];
    const times: number[] = [];
    const base: FetchLike = async () => {
      times.push(now);
      return new Response('{}', { status: 201 });
    };
    const paced = pacedFetch(base, { now: () => now, sleep: async (ms) => void (sleeps.push(ms), (now += ms)) });
    for (let i = 0; i < 120; i++) await paced('https://x.test/v1/quotes', { method: 'POST' });
    const worstMinute = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 60_000).length));
    expect(worstMinute).toBe(50);
    const worstSecond = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1_000).length));
    expect(worstSecond).toBeLessThanOrEqual(8);
    expect(sleeps.length).toBeGreaterThan(0);

    // The runner paces with the same defaults unless told `pacing: false`.
    const { sandbox } = sandboxWithReceiver();
    let clock = 0;
    const waits: number[] = [];
    const report = await runConformance({ baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: sandbox.fetch, scenarios: ['quotes.'], pacing: { now: () => clock, sleep: async (ms) => void (waits.push(ms), (clock += ms)) } });
    expect(report.ok).toBe(true);
    expect(waits.length).toBeGreaterThan(0);
  });
});

describe('reporters', () => {
  it('JSON is the report; JUnit has one testcase per scenario with failures and findings', async () => {
    const { sandbox } = sandboxWithReceiver();
    sandbox.use('wrong-status', async (call, next) => {
      const answer = await next();
      return call.path === '/v1/quotes' && answer.status === 201 ? { ...answer, status: 200 } : answer;
    });
    const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: sandbox.fetch, scenarios: ['quotes.onramp', 'users.errors', 'webhooks.delivery'] });
    expect(JSON.parse(formatJson(report))).toEqual(report);
    // A status the reference does not show is a finding against the project's decision, not a failure.
    expect(report.scenarios.map((s) => s.verdict)).toEqual(['pass', 'finding', 'skipped']);
    expect(report.ok).toBe(true);
    const xml = formatJunit(report);
    expect(xml.match(/<testcase /g)?.length).toBe(3);
    expect(xml).toContain('tests="3" failures="0" errors="0" skipped="1"');
    expect(xml).toContain('[finding, differs] create: HTTP status: expected 201, observed 200');
    expect(xml).toContain('<skipped message="needs a webhook receiver URL');
  });
});
