/**
 * The operator's views through the Worker, behind the operator's token (`Authorization: Bearer
 * <CONTROL_TOKEN>`, as `serve`'s `control_key`): the tenant listing (`/_sandbox/tenants`, the
 * directory's), the request log's feed (`/_sandbox/logs`: a tenant's key reads its own lines in its
 * object, the operator one tenant's with `?tenant_id=` or a page of tenants' merged) and the
 * inspector (`/_inspector/`: the page and its script for anyone, as a sign-in page is; its API for
 * the operator only, one tenant's routes in that tenant's object, the views across tenants by
 * fan-out over a page of the listing). docs/scale.md says what each costs.
 * @module
 */
import { type InspectedRequest, type InspectedTenantSummary, type Sandbox, createSandbox, readApiKey } from '../sandbox/index.js';
import { LOG_FEED_PATH } from '../sandbox/http/request-log.js';
import { type DirectoryClient, type ListedTenant, type TenantPage, directoryOf } from './directory.js';
import { FAN_OUT_PAGE, type Gathered, fanOut, mergedFeed } from './fan-out.js';
import type { SandboxWorkerEnv } from './runtime.js';
import { envelope, isOperator } from './shared.js';

/** The directory's listing of tenants (no tenant object is woken). */
export const TENANTS_PATH = '/_sandbox/tenants';
/** The inspector's page; its API is under `api/`. */
export const INSPECTOR_PATH = '/_inspector/';
/** Tenants per page of `/_sandbox/tenants`: by default, and at most. */
const LISTING_PAGE = { default: 100, max: 1_000 } as const;
/** The inspection API keeps this many requests, newest first (as `serve`'s log). */
const REQUESTS_KEPT = 1_000;
const INTERNAL = 'https://tenant.internal';

/** Whether the Worker answers `path` as one of the operator's views. */
export function isOperatorPath(path: string): boolean {
  return path === TENANTS_PATH || path === LOG_FEED_PATH || path === INSPECTOR_PATH.slice(0, -1) || path.startsWith(INSPECTOR_PATH);
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers } });
}

function refused(what: string): Response {
  return envelope('authentication_failed', `${what} needs the operator's token: Authorization: Bearer <CONTROL_TOKEN>. A tenant's API key does not open it.`);
}

/** `?limit=` and `?cursor=` of a page, or the refusal of a bad value. */
function pageOf(url: URL, bounds: { default: number; max: number }): { limit: number; cursor: string | null } | Response {
  const raw = url.searchParams.get('limit');
  const limit = raw === null ? bounds.default : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > bounds.max) {
    return envelope('validation_error', `limit must be a whole number from 1 to ${bounds.max}.`, { issues: [{ path: 'limit', message: `From 1 to ${bounds.max}` }] });
  }
  const cursor = url.searchParams.get('cursor');
  if (cursor !== null && !/^\d{1,15}$/.test(cursor)) return envelope('invalid_cursor', 'The cursor is not one this listing gave.');
  return { limit, cursor };
}

/** The headers that say where the next page starts and which tenants did not answer. */
function pageHeaders(page: TenantPage, gathered: ReadonlyArray<Gathered<{ tenant_id: string }, unknown>> = []): Record<string, string> {
  const headers: Record<string, string> = {};
  if (page.next_cursor !== null) headers['x-next-cursor'] = page.next_cursor;
  const missing = gathered.filter((g) => g.value === null).map((g) => g.item.tenant_id);
  if (missing.length > 0) headers['x-unanswered-tenants'] = missing.join(',');
  return headers;
}

/** A request to a tenant's object, with the operator's header. */
function ask(env: SandboxWorkerEnv, object: string, pathAndQuery: string, request: Request, signal?: AbortSignal): Promise<Response> {
  const stub = env.TENANTS.get(env.TENANTS.idFromString(object));
  const init: RequestInit = { headers: { authorization: request.headers.get('authorization') ?? '', accept: request.headers.get('accept') ?? '*/*' } };
  if (signal !== undefined) init.signal = signal;
  return stub.fetch(new Request(`${INTERNAL}${pathAndQuery}`, init));
}

async function askJson<T>(env: SandboxWorkerEnv, object: string, pathAndQuery: string, request: Request, signal: AbortSignal): Promise<T> {
  const response = await ask(env, object, pathAndQuery, request, signal);
  if (!response.ok) throw new Error(`${pathAndQuery}: ${response.status}`);
  return (await response.json()) as T;
}

// The page, its script and the conversion machine are the same in every sandbox: one scratch sandbox per isolate serves them.
let scratch: Sandbox | undefined;
function staticInspector(): Sandbox['inspector'] {
  scratch ??= createSandbox();
  return scratch.inspector;
}

/** The operator's views: `path` is one of {@link isOperatorPath}'s. */
export async function operatorView(request: Request, env: SandboxWorkerEnv, url: URL): Promise<Response> {
  const directory = directoryOf(env);
  const operator = isOperator(request.headers.get('authorization'), env);
  if (url.pathname === LOG_FEED_PATH) return logFeed(request, env, url, directory, operator);
  if (url.pathname === TENANTS_PATH) {
    if (!operator) return refused('The tenant listing');
    if (request.method !== 'GET') return envelope('method_not_allowed', `Use GET ${TENANTS_PATH}.`);
    const page = pageOf(url, LISTING_PAGE);
    if (page instanceof Response) return page;
    const listed = await directory.tenants(page.cursor, page.limit);
    return json(200, { data: listed.data.map(({ tenant_id, created_at }): ListedTenant => ({ tenant_id, created_at })), next_cursor: listed.next_cursor });
  }
  return inspector(request, env, url, directory, operator);
}

/**
 * `/_sandbox/logs`: a tenant's live key reads its tenant's lines (its object's own feed decides,
 * as `serve`'s does); the operator reads one tenant's (`?tenant_id=`) or a page of tenants'
 * merged (`?limit=`, `?cursor=`). `?backlog=N` is passed on to each object.
 */
async function logFeed(request: Request, env: SandboxWorkerEnv, url: URL, directory: DirectoryClient, operator: boolean): Promise<Response> {
  if (request.method !== 'GET') return envelope('method_not_allowed', `Use GET ${LOG_FEED_PATH}.`);
  const query = url.searchParams.has('backlog') ? `?backlog=${encodeURIComponent(url.searchParams.get('backlog') ?? '')}` : '';
  if (!operator) {
    const key = readApiKey(request.headers.get('authorization'));
    const found = typeof key === 'string' ? await directory.lookup(key) : null;
    if (found === null) return envelope('authentication_failed', "Send a tenant's API key (its requests) or the operator's token (every tenant's): Authorization: Bearer <key>.");
    return env.TENANTS.get(env.TENANTS.idFromString(found.object)).fetch(request);
  }
  const tenantId = url.searchParams.get('tenant_id');
  if (tenantId !== null) {
    const found = await directory.tenant(tenantId);
    if (found === null) return envelope('not_found', `No tenant ${tenantId}.`);
    return ask(env, found.object, `${LOG_FEED_PATH}${query}`, request);
  }
  const page = pageOf(url, FAN_OUT_PAGE);
  if (page instanceof Response) return page;
  const listed = await directory.tenants(page.cursor, page.limit);
  const sources = listed.data.map((t) => (signal: AbortSignal) => ask(env, t.object, `${LOG_FEED_PATH}${query}`, request, signal));
  const body = mergedFeed(sources, 'pix-usdt-sandbox request log', request.signal);
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no', ...pageHeaders(listed) } });
}

/** The inspector: the page and script for anyone; the API for the operator, routed to a tenant's object or fanned out. */
async function inspector(request: Request, env: SandboxWorkerEnv, url: URL, directory: DirectoryClient, operator: boolean): Promise<Response> {
  const rest = url.pathname.slice(INSPECTOR_PATH.length).split('/');
  if (rest[0] !== 'api') return staticInspector().fetch(request);
  if (!operator) return refused('The inspector');
  const [, first, second] = rest;
  if (first === 'machines') return staticInspector().fetch(request);
  if (first === 'tenants' && second !== undefined && second !== '') {
    let tenantId: string;
    try {
      tenantId = decodeURIComponent(second);
    } catch {
      return envelope('validation_error', `The path ${url.pathname} is not valid percent-encoding (UTF-8).`);
    }
    const found = await directory.tenant(tenantId);
    if (found === null) return envelope('not_found', `No tenant ${tenantId}.`);
    return env.TENANTS.get(env.TENANTS.idFromString(found.object)).fetch(request);
  }
  if (request.method !== 'GET') return envelope('method_not_allowed', 'The inspection API is read-only; actions are POST tenants/{id}/actions.');
  const only = url.searchParams.get('tenant_id');
  if (first === 'requests' && only !== null) {
    const found = await directory.tenant(only);
    return found === null ? json(200, []) : env.TENANTS.get(env.TENANTS.idFromString(found.object)).fetch(request);
  }
  const page = pageOf(url, FAN_OUT_PAGE);
  if (page instanceof Response) return page;
  const listed = await directory.tenants(page.cursor, page.limit);
  const path = `${url.pathname}${url.search}`;
  if (first === 'stream' && rest.length === 2) {
    const sources = listed.data.map((t) => (signal: AbortSignal) => ask(env, t.object, path, request, signal));
    return new Response(mergedFeed(sources, 'pix-usdt sandbox inspector', request.signal), { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no', ...pageHeaders(listed) } });
  }
  if (first === 'tenants' && rest.length === 2) {
    const gathered = await fanOut(listed.data, (t, signal) => askJson<InspectedTenantSummary[]>(env, t.object, path, request, signal));
    // No tenant is the deployment's default: each is its object's own.
    const summaries = gathered.flatMap((g) => (g.value ?? []).map((s) => ({ ...s, default: false })));
    return json(200, summaries, pageHeaders(listed, gathered));
  }
  if (first === 'requests' && rest.length === 2) {
    const gathered = await fanOut(listed.data, (t, signal) => askJson<InspectedRequest[]>(env, t.object, path, request, signal));
    const merged = gathered.flatMap((g) => g.value ?? []).sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
    return json(200, merged.slice(0, REQUESTS_KEPT), pageHeaders(listed, gathered));
  }
  if (first === 'search' && rest.length === 2) {
    const gathered = await fanOut(listed.data, (t, signal) => askJson<unknown[]>(env, t.object, path, request, signal));
    return json(200, gathered.flatMap((g) => g.value ?? []), pageHeaders(listed, gathered));
  }
  return envelope('not_found', `No inspection route ${url.pathname}.`);
}
