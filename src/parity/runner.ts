/**
 * `runConformance`: runs the scenario library against one deployment of the API and reports,
 * scenario by scenario, where its answers differ from what the reference promises.
 * @module
 */
import type { FetchLike } from '../index.js';
import { ScenarioContext, ScenarioStop, type Observed, type ScenarioScript } from './context.js';
import { pacedFetch } from './pacing.js';
import { DEFAULT_PIX_FIXTURES } from './reference.js';
import { SCENARIOS } from './scenarios/index.js';
import type { ConformanceOptions, ConformanceReport, ConformanceTenant, ScenarioResult, Verdict } from './types.js';

/** Thrown before any request when the options are unsafe or invalid (a live key, a bad URL). */
export class ConformanceOptionsError extends Error {
  override readonly name = 'ConformanceOptionsError';
}

function defaultRunId(): string {
  return `parity-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

function validate(options: ConformanceOptions): string {
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new ConformanceOptionsError('apiKey is required: a sk_test_ key of the deployment to check.');
  if (options.apiKey.startsWith('sk_live_')) {
    throw new ConformanceOptionsError('Refusing a sk_live_ key: conformance creates users and conversions and drives them with test helpers; run it against a sandbox with a sk_test_ key.');
  }
  if (!/^sk_test_[\x21-\x7e]+$/.test(options.apiKey)) throw new ConformanceOptionsError('apiKey must be a sk_test_ key of the deployment to check.');
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new ConformanceOptionsError(`baseUrl ${JSON.stringify(options.baseUrl)} is not an absolute URL (e.g. https://sandbox.example.com).`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConformanceOptionsError(`baseUrl must be http(s), got ${url.protocol}`);
  if (options.runId !== undefined && !/^[A-Za-z0-9_-]{1,40}$/.test(options.runId)) throw new ConformanceOptionsError('runId: 1 to 40 letters, digits, _ or -.');
  if (options.tenant !== undefined && options.tenant !== 'own' && options.tenant !== 'key') throw new ConformanceOptionsError(`tenant must be 'own' or 'key', got ${JSON.stringify(options.tenant)}.`);
  return url.href.replace(/\/+$/, '');
}

/** The scenarios `selection` names (an id, or a prefix ending in `.`); every one when empty. */
export function selectScenarios(selection: readonly string[] | undefined, library: readonly ScenarioScript[] = SCENARIOS): ScenarioScript[] {
  if (selection === undefined || selection.length === 0) return [...library];
  const unknown = selection.filter((s) => !library.some((sc) => sc.id === s || (s.endsWith('.') && sc.id.startsWith(s))));
  if (unknown.length > 0) throw new ConformanceOptionsError(`Unknown scenario ${unknown.map((u) => JSON.stringify(u)).join(', ')}; known: ${library.map((s) => s.id).join(', ')}.`);
  return library.filter((sc) => selection.some((s) => sc.id === s || (s.endsWith('.') && sc.id.startsWith(s))));
}

/** Wraps `fetch` so that each exchange is seen as it went on the wire. */
function observingFetch(fetch: FetchLike, log: Observed[]): FetchLike {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const response = await fetch(request);
    const text = await response.clone().text();
    log.push({ method: request.method, path: `${url.pathname}${url.search}`, status: response.status, headers: response.headers, text });
    if (log.length > 50) log.splice(0, log.length - 50);
    return response;
  };
}

function verdictOf(result: Pick<ScenarioResult, 'checks'>): Verdict {
  if (result.checks.some((c) => c.level === 'promise' && !c.ok)) return 'fail';
  if (result.checks.some((c) => c.level === 'finding' && !c.ok)) return 'finding';
  return 'pass';
}

/**
 * A tenant for the run (`POST /v1/test_helpers/tenants` with the caller's key): its key, or the
 * caller's with a note when the deployment cannot make one (the platform's own sandbox: 404; a
 * key without `sandbox:control`: 403). A server of an older version answered the key object.
 */
async function ownTenant(fetch: FetchLike, baseUrl: string, apiKey: string): Promise<{ apiKey: string; tenant: ConformanceTenant }> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/v1/test_helpers/tenants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: '{}',
    });
  } catch (error) {
    return { apiKey, tenant: { made: false, id: null, note: `the deployment could not be asked for a tenant (${error instanceof Error ? error.message : String(error)}): the API key's tenant is used` } };
  }
  const text = await response.text();
  if (response.status === 201) {
    try {
      const made = JSON.parse(text) as { tenant_id?: unknown; api_key?: unknown };
      const key = typeof made.api_key === 'string' ? made.api_key : (made.api_key as { api_key?: unknown } | null | undefined)?.api_key;
      if (typeof key === 'string' && typeof made.tenant_id === 'string') return { apiKey: key, tenant: { made: true, id: made.tenant_id } };
    } catch {
      // Not the answer of a tenant: as below.
    }
  }
  let code = '';
  try {
    code = String((JSON.parse(text) as { code?: unknown }).code ?? '');
  } catch {
    // No envelope.
  }
  return { apiKey, tenant: { made: false, id: null, note: `the deployment cannot make tenants (POST /v1/test_helpers/tenants answered ${response.status}${code === '' ? '' : ` ${code}`}): the API key's tenant is used` } };
}

/**
 * Runs the conformance scenarios against `baseUrl` with `apiKey` and returns the report.
 * Refuses a `sk_live_` key. Runs in a tenant of its own where the deployment can make one
 * (`tenant`), else in the key's, where it creates only its own users (external ids under the
 * run prefix), webhook endpoints and conversions, and touches nothing else; paces quotes under
 * the 60-a-minute limit unless `pacing: false`.
 *
 * @param options - Where to run, with what key, and which scenarios.
 * @returns The report; `report.ok` is `false` when a promise of the reference differs.
 * @throws {@link ConformanceOptionsError} before any request, on a live key or invalid options.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const baseUrl = validate(options);
  const scenarios = selectScenarios(options.scenarios).filter((s) => s.needsRateLimit !== true || options.exerciseRateLimit === true || options.scenarios?.includes(s.id) === true);
  const base: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sleep = (options.pacing === false ? undefined : options.pacing?.sleep) ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const shared = { counter: 0, observed: [] as Observed[] };
  const unpaced = observingFetch(base, shared.observed);
  const paced = options.pacing === false ? unpaced : observingFetch(pacedFetch(base, options.pacing), shared.observed);
  const runId = options.runId ?? defaultRunId();
  const started = Date.now();
  const { apiKey, tenant } =
    options.tenant === 'key' ? { apiKey: options.apiKey, tenant: { made: false, id: null } } : await ownTenant(unpaced, baseUrl, options.apiKey);
  const results: ScenarioResult[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    const t0 = Date.now();
    const result: ScenarioResult = { id: scenario.id, title: scenario.title, promises: scenario.promises, verdict: 'pass', checks: [], durationMs: 0 };
    if (scenario.needsReceiver === true && options.receiverUrl === undefined) {
      result.verdict = 'skipped';
      result.reason = 'needs a webhook receiver URL (receiverUrl / --receiver-url)';
    } else {
      const ctx = new ScenarioContext({
        baseUrl, apiKey, fetch: scenario.needsRateLimit === true ? unpaced : paced, runId,
        pixFixtures: options.pixFixtures ?? DEFAULT_PIX_FIXTURES, receiverUrl: options.receiverUrl, received: options.received,
        webhookWaitMs: options.webhookWaitMs ?? 30_000, sleep, shared,
      });
      try {
        await scenario.run(ctx);
        result.checks = ctx.checks;
        result.verdict = verdictOf(result);
      } catch (error) {
        result.checks = ctx.checks;
        if (error instanceof ScenarioStop) {
          result.verdict = 'fail';
          result.reason = error.message;
        } else {
          result.verdict = 'error';
          result.reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        }
      }
    }
    result.durationMs = Date.now() - t0;
    results.push(result);
    options.onProgress?.(result, index, scenarios.length);
  }
  const counts: Record<Verdict, number> = { pass: 0, finding: 0, fail: 0, error: 0, skipped: 0 };
  for (const r of results) counts[r.verdict]++;
  return {
    baseUrl, runId, startedAt: new Date(started).toISOString(), durationMs: Date.now() - started,
    ok: counts.fail === 0 && counts.error === 0, tenant, counts, scenarios: results,
  };
}
