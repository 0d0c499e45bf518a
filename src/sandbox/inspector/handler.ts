/**
 * The console's `fetch` handler: the page, its script (a separate chunk, loaded on first use so
 * that `pix-usdt/sandbox` carries no UI until someone opens it), the JSON inspection API, the
 * live stream (server-sent events) and the actions. Actions are proxied to the sandbox's own
 * `fetch` with the tenant's API key: the same public routes a partner's code calls, and the key
 * never reaches the browser.
 * @module
 */
import type { Platform } from '../core/platform.js';
import { ApiError } from '../core/errors.js';
import { priceOut } from '../core/settings.js';
import { envelopeAnswer } from '../http/call.js';
import { parseJsonBody } from '../http/json-body.js';
import { PathPattern } from '../http/path.js';
import { eventStream } from '../http/event-stream.js';
import type { RequestLog } from '../http/request-log.js';
import { newRequestId } from '../http/request-id.js';
import type { WebhookRecords } from '../plugins/webhooks/index.js';
import { type Inspection, UnshowableTenantError, requestOut } from './inspection.js';
import type { RequestFilter } from './types.js';

/** The path the console is served under. */
export const INSPECTOR_BASE = '/_inspector/';

/** What the handler needs besides the inspection. */
export interface HandlerParts {
  platform: Platform;
  requests: RequestLog;
  webhooks: WebhookRecords;
  inspection: Inspection;
  /** Whether the app has a route (actions offered only where their route exists). */
  hasRoute: (method: string, path: string) => boolean;
  /** The sandbox's own fetch (actions go through the public routes). */
  fetch: (input: string, init: RequestInit) => Promise<Response>;
}

// The routes an action may call, all POST: exactly the console's actions (docs/inspector.md,
// "What it does"). Not the tenant, limits or settings helpers (a new tenant's whole key, or a
// change of what the tenant's suite runs against), nor any other partner call.
const ACTIONS = [
  '/v1/test_helpers/conversions/:id/deposit',
  '/v1/test_helpers/conversions/:id/expire',
  '/v1/test_helpers/conversions/:id/fail',
  '/v1/conversions/:id/liquidate',
  '/v1/conversions/:id/cancel',
  '/v1/test_helpers/users/:id/kyc',
  '/v1/test_helpers/clock/advance',
  '/v1/webhook_deliveries/:id/redeliver',
  '/v1/test_helpers/faults',
  '/v1/test_helpers/price',
].map((path) => new PathPattern(path, { wildcards: false }));

/** Whether the console may call `method path` (a documented action). */
export function isInspectorAction(method: string, path: string): boolean {
  return method === 'POST' && !path.includes('?') && ACTIONS.some((pattern) => pattern.test(path));
}

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

/**
 * A JSON answer with an `x-request-id`. An error answer (`{ code, message, details? }`, status
 * 400 and up) is the API's envelope: its `request_id` is the header's, as on `/v1`.
 */
function json(status: number, body: unknown): Response {
  const requestId = newRequestId();
  let text: string;
  if (status >= 400 && typeof body === 'object' && body !== null && 'code' in body) {
    const { code, message, details } = body as { code: string; message: string; details?: Record<string, unknown> };
    text = envelopeAnswer({ status, code, message, details }, requestId).body as string;
  } else text = JSON.stringify(body);
  return new Response(text, { status, headers: { 'content-type': 'application/json; charset=utf-8', ...SECURITY_HEADERS, 'x-request-id': requestId } });
}

/** Every answer carries an `x-request-id`: the page, the script, the stream and the redirect get a fresh one. */
function identified(response: Response): Response {
  if (response.headers.get('x-request-id')) return response;
  response.headers.set('x-request-id', newRequestId());
  return response;
}

function notFound(message: string): Response {
  return json(404, { code: 'not_found', message });
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>pix-usdt sandbox inspector</title>
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'">
</head>
<body>
<noscript>The inspector needs JavaScript.</noscript>
<div id="app"></div>
<script src="app.js"></script>
</body>
</html>
`;

let uiScript: Promise<string> | undefined;

/** The console's `fetch` handler over a sandbox. */
export function inspectorHandler(parts: HandlerParts, base = INSPECTOR_BASE): (request: Request) => Promise<Response> {
  const { inspection, platform } = parts;

  const keyOf = (tenantId: string): string | null => {
    const tenant = platform.tenant(tenantId);
    const key = tenant?.keys.find((k) => k.revokedAt === null && k.capabilities.includes('sandbox:control'));
    return key?.secret ?? null;
  };

  const stream = (signal: AbortSignal): Response => {
    const body = eventStream(
      (sink) => {
        const offRequests = parts.requests.subscribe((entry) => sink.send(requestOut(entry), 'request'));
        const onTransition = (change: { id: string; from: string | null; to: string; eventType: string | null; at: string }, tenantId: string): void =>
          void sink.send({ tenant_id: tenantId, conversion_id: change.id, from: change.from, to: change.to, event_type: change.eventType, at: change.at }, 'state');
        platform.moves.add(onTransition);
        const offDeliveries = parts.webhooks.subscribe((tenantId, d) =>
          sink.send({ tenant_id: tenantId, delivery_id: d.id, event_id: d.eventId, event_type: d.eventType, status: d.status, attempts: d.attempts.length }, 'delivery'),
        );
        return () => {
          offRequests();
          offDeliveries();
          platform.moves.delete(onTransition);
        };
      },
      { hello: 'pix-usdt sandbox inspector', signal },
    );
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', 'x-accel-buffering': 'no', ...SECURITY_HEADERS } });
  };

  const action = async (request: Request, tenantId: string): Promise<Response> => {
    if (request.headers.get('x-inspector') !== '1') return json(403, { code: 'forbidden', message: 'Actions need the header X-Inspector: 1 (sent by the console).' });
    const usage = (): Response => json(400, { code: 'invalid_json', message: 'Send { "path": "/v1/test_helpers/...", "body": {...} }.' });
    let value: unknown;
    try {
      // The /v1 reader: not JSON, or nested deeper than /v1 accepts, is a 400 with the reason.
      value = parseJsonBody(await request.text());
    } catch (error) {
      if (error instanceof ApiError && error.code !== 'invalid_json') return json(error.status, { code: error.code, message: error.message, details: error.details });
      return usage();
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return usage();
    const input = value as { method?: unknown; path?: unknown; body?: unknown };
    const path = typeof input.path === 'string' ? input.path : '';
    const method = input.method === undefined ? 'POST' : String(input.method).toUpperCase();
    if (!isInspectorAction(method, path)) {
      const shown = `${method.slice(0, 10)} ${path.slice(0, 200) || '(no path)'}`;
      const requestId = newRequestId();
      const message = `The console does not call ${shown}: its actions are the POST routes docs/inspector.md lists.`;
      const answer = envelopeAnswer({ status: 400, code: 'validation_error', message, details: { issues: [{ path: 'path', message: 'Not an inspector action' }] } }, requestId);
      return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, ...SECURITY_HEADERS, 'x-request-id': requestId } });
    }
    const key = keyOf(tenantId);
    if (key === null) return notFound(`No tenant ${tenantId} with a usable API key.`);
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    const init: RequestInit = { method, headers };
    if (method === 'POST') {
      headers['content-type'] = 'application/json';
      // Each click is a new operation: a fresh key (the routes require one).
      headers['idempotency-key'] = `inspector-${crypto.randomUUID()}`;
      init.body = JSON.stringify(input.body ?? {});
    }
    const answer = await parts.fetch(path, init);
    const text = await answer.text();
    return new Response(text || null, {
      status: answer.status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': answer.headers.get('x-request-id') ?? '', ...SECURITY_HEADERS },
    });
  };

  const api = async (request: Request, rest: string[], url: URL): Promise<Response> => {
    const [first, second, third, fourth] = rest;
    if (request.method === 'POST' && first === 'tenants' && second !== undefined && third === 'actions' && rest.length === 3) return action(request, second);
    if (request.method !== 'GET') return json(405, { code: 'method_not_allowed', message: 'The inspection API is read-only; actions are POST tenants/{id}/actions.' });
    if (first === 'tenants' && rest.length === 1) return json(200, inspection.tenants());
    if (first === 'tenants' && second !== undefined && rest.length === 2) {
      if (platform.tenant(second) === undefined) return notFound(`No tenant ${second}.`);
      return json(200, inspection.tenant(second));
    }
    if (first === 'tenants' && second !== undefined && third === 'conversions' && fourth !== undefined && rest.length === 4) {
      if (platform.tenant(second) === undefined) return notFound(`No tenant ${second}.`);
      const page = inspection.conversion(second, fourth);
      return page === null ? notFound(`No conversion ${fourth} in tenant ${second}.`) : json(200, page);
    }
    if (first === 'tenants' && second !== undefined && third === 'price' && rest.length === 3) {
      // The console offers the price form only where the sandbox has the public route it calls.
      if (!parts.hasRoute('POST', '/v1/test_helpers/price')) return notFound('This sandbox has no price helper route.');
      const tenant = platform.tenants.get(second);
      if (!tenant) return notFound(`No tenant ${second}.`);
      return json(200, priceOut(tenant.settings.price));
    }
    if (first === 'requests' && rest.length === 1) {
      const filter: RequestFilter = {};
      for (const name of ['status', 'path', 'request_id', 'tenant_id'] as const) {
        const value = url.searchParams.get(name);
        if (value) filter[name] = value;
      }
      return json(200, inspection.requests(filter));
    }
    if (first === 'search' && rest.length === 1) return json(200, inspection.search(url.searchParams.get('q') ?? ''));
    if (first === 'machines' && second === 'conversion' && rest.length === 2) return json(200, inspection.conversionMachine());
    if (first === 'stream' && rest.length === 1) return stream(request.signal);
    return notFound(`No inspection route ${url.pathname}.`);
  };

  return async (request) => identified(await answer(request));

  async function answer(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const root = base.replace(/\/$/, '');
    if (url.pathname === root) return new Response(null, { status: 308, headers: { location: base } });
    if (!url.pathname.startsWith(base)) return notFound(`The inspector serves ${base} only.`);
    let rest: string[];
    try {
      rest = url.pathname.slice(base.length).split('/').filter((s) => s !== '').map(decodeURIComponent);
    } catch {
      return json(400, {
        code: 'validation_error',
        message: `The path ${url.pathname} is not valid percent-encoding (UTF-8).`,
        details: { issues: [{ path: 'path', message: 'Invalid percent-encoding' }] },
      });
    }
    if (rest.length === 0) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { code: 'method_not_allowed', message: 'GET the page.' });
      return new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS } });
    }
    if (rest[0] === 'app.js' && rest.length === 1) {
      uiScript ??= import('./ui-asset.js').then((m) => m.UI_SCRIPT);
      return new Response(await uiScript, { headers: { 'content-type': 'text/javascript; charset=utf-8', ...SECURITY_HEADERS, 'cache-control': 'no-cache' } });
    }
    if (rest[0] === 'api') {
      try {
        return await api(request, rest.slice(1), url);
      } catch (error) {
        // One tenant whose data cannot be shown: its page says so; the others answer as usual.
        if (error instanceof UnshowableTenantError) return json(500, { code: 'internal_error', message: error.message, details: { tenant_id: error.tenantId } });
        // A stored sandbox's read that failed (src/sandbox/stored.ts): its own answer, as on /v1.
        if (error instanceof ApiError && error.code === 'storage_unavailable') return json(error.status, { code: error.code, message: error.message, details: error.details });
        // Never the error's own message: it may name internals (or be a stack overflow's).
        return json(500, { code: 'internal_error', message: 'The inspection failed unexpectedly.' });
      }
    }
    return notFound(`No inspector page ${url.pathname}.`);
  }
}
