// The inspector's console: preact + htm, no build-time JSX, bundled by scripts/inspector-ui.ts.
// Pages (hash routes): #/ and #/t/{tenant} (a tenant), #/t/{tenant}/c/{conversion} (a
// conversion), #/requests (the request log). Reads go to api/*, actions to
// api/tenants/{id}/actions, and api/stream (server-sent events) refreshes what is on screen.
import { h, render } from 'preact';
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import htm from 'htm';
import { CSS } from './style.js';
import { diagram } from './diagram.js';
import { allowedActions } from './actions.js';

const html = htm.bind(h);

type Json = Record<string, unknown>;
interface Summary {
  id: string;
  default: boolean;
  now: string | null;
  counts: Record<string, number>;
  /** Present when the tenant's data cannot be shown. */
  problem?: string;
}

// A deployment that guards its console (the Durable Objects Worker) asks for the operator's token:
// kept in this tab's sessionStorage and sent as a header, never in a URL (URLs land in logs).
const TOKEN_KEY = 'pix-usdt-inspector-token';
let needsToken = false;
function authHeaders(): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
}
function refusedToken(res: Response): void {
  if (res.status !== 401 || needsToken) return;
  needsToken = true;
  bump();
}

async function get<T>(path: string): Promise<T> {
  const res = await fetch(path, { headers: { accept: 'application/json', ...authHeaders() } });
  refusedToken(res);
  const body = (await res.json()) as T & { message?: string };
  if (!res.ok) throw new Error(body.message ?? `HTTP ${res.status}`);
  return body;
}

/** Calls a public route through the inspector (the tenant's key is added server-side). */
async function act(tenant: string, path: string, body: unknown = {}, method = 'POST'): Promise<{ ok: boolean; status: number; text: string; requestId: string }> {
  const res = await fetch(`api/tenants/${encodeURIComponent(tenant)}/actions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-inspector': '1', ...authHeaders() },
    body: JSON.stringify({ method, path, body }),
  });
  refusedToken(res);
  return { ok: res.ok, status: res.status, text: await res.text(), requestId: res.headers.get('x-request-id') ?? '' };
}

// --- live updates ----------------------------------------------------------------------------
let version = 0;
const listeners = new Set<() => void>();
let live = false;
let timer: ReturnType<typeof setTimeout> | undefined;
function bump(): void {
  if (timer !== undefined) return;
  timer = setTimeout(() => {
    timer = undefined;
    version++;
    for (const l of listeners) l();
  }, 60);
}
// The live stream, read with fetch rather than EventSource (which cannot send the token's header);
// reconnects after a pause, as EventSource would.
let connection: AbortController | null = null;
function connect(): void {
  connection?.abort();
  const controller = new AbortController();
  connection = controller;
  const lost = (): void => {
    if (controller.signal.aborted) return;
    live = false;
    bump();
    if (!needsToken) setTimeout(() => connection === controller && connect(), 3000);
  };
  void fetch('api/stream', { headers: { accept: 'text/event-stream', ...authHeaders() }, signal: controller.signal })
    .then(async (res) => {
      refusedToken(res);
      if (!res.ok || res.body === null) return lost();
      live = true;
      bump();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return lost();
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (/^event: (request|state|delivery)$/m.test(frame)) bump();
        }
      }
    })
    .catch(lost);
}
function useVersion(): number {
  const [v, setV] = useState(version);
  useEffect(() => {
    const l = (): void => setV(version);
    listeners.add(l);
    return () => void listeners.delete(l);
  }, []);
  return v;
}
function useData<T>(path: string | null): { data: T | null; error: string | null } {
  const v = useVersion();
  const [state, setState] = useState<{ data: T | null; error: string | null; path: string | null }>({ data: null, error: null, path: null });
  useEffect(() => {
    if (path === null) return;
    let on = true;
    get<T>(path).then(
      (data) => on && setState({ data, error: null, path }),
      (e: Error) => on && setState({ data: null, error: e.message, path }),
    );
    return () => void (on = false);
  }, [path, v]);
  return state.path === path ? state : { data: null, error: null };
}

// --- routing ---------------------------------------------------------------------------------
function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const on = (): void => setHash(location.hash || '#/');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}
const enc = encodeURIComponent;
const tenantHref = (t: string): string => `#/t/${enc(t)}`;
const conversionHref = (t: string, c: string): string => `#/t/${enc(t)}/c/${enc(c)}`;

// --- pieces ----------------------------------------------------------------------------------
function Status({ value }: { value: unknown }) {
  return html`<span class=${`badge s-${String(value)}`}>${String(value)}</span>`;
}

function Result({ result }: { result: { ok: boolean; status: number; text: string; requestId: string } | null }) {
  if (result === null) return null;
  let message = result.text;
  try {
    const body = JSON.parse(result.text) as Json;
    message = result.ok ? `${result.status} OK` : `${result.status} ${String(body['code'])}: ${String(body['message'])}`;
  } catch {
    // Keep the text.
  }
  return html`<p role="status" class=${result.ok ? 'ok' : 'err'}>${message}${result.requestId ? html` <code>${result.requestId}</code>` : null}</p>`;
}

function useAction(tenant: string): [(path: string, body?: unknown, method?: string) => Promise<void>, ReturnType<typeof Result> | null, boolean] {
  const [result, setResult] = useState<{ ok: boolean; status: number; text: string; requestId: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async (path: string, body?: unknown, method?: string) => {
      setBusy(true);
      try {
        setResult(await act(tenant, path, body, method));
      } finally {
        setBusy(false);
        bump();
      }
    },
    [tenant],
  );
  return [run, html`<${Result} result=${result} />`, busy];
}

function Fields({ object }: { object: Json }) {
  return html`<dl class="fields">${Object.entries(object).map(
    ([k, v]) => html`<div><dt>${k}</dt><dd>${v === null ? html`<span class="muted">null</span>` : k === 'status' ? html`<${Status} value=${v} />` : html`<code>${typeof v === 'object' ? JSON.stringify(v) : String(v)}</code>`}</dd></div>`,
  )}</dl>`;
}

function Clock({ tenant, now }: { tenant: string; now: string }) {
  const [seconds, setSeconds] = useState('3600');
  const [run, result, busy] = useAction(tenant);
  const advance = (s: number): Promise<void> => run('/v1/test_helpers/clock/advance', { seconds: s });
  return html`<section aria-labelledby="clock-h" class="card">
    <h2 id="clock-h">Clock</h2>
    <p>Now: <time data-testid="clock-now">${now}</time></p>
    <form onSubmit=${(e: Event) => (e.preventDefault(), void advance(Number(seconds)))}>
      <label for="advance-seconds">Advance by (seconds)</label>
      <input id="advance-seconds" type="number" min="0" max="31536000" value=${seconds} onInput=${(e: Event) => setSeconds((e.target as HTMLInputElement).value)} />
      <button type="submit" disabled=${busy}>Advance clock</button>
      <button type="button" disabled=${busy} onClick=${() => void advance(86_400)}>+1 day</button>
      <button type="button" disabled=${busy} onClick=${() => void advance(8 * 86_400)}>+8 days</button>
    </form>
    ${result}
  </section>`;
}

function Table({ caption, rows, columns }: { caption: string; rows: Json[]; columns: Array<[string, (row: Json) => unknown]> }) {
  return html`<table>
    <caption>${caption} (${rows.length})</caption>
    <thead><tr>${columns.map(([name]) => html`<th scope="col">${name}</th>`)}</tr></thead>
    <tbody>${rows.length === 0 ? html`<tr><td colspan=${columns.length} class="muted">None yet.</td></tr>` : rows.map((row) => html`<tr>${columns.map(([, cell]) => html`<td>${cell(row)}</td>`)}</tr>`)}</tbody>
  </table>`;
}

function KycActions({ tenant, user }: { tenant: string; user: Json }) {
  const [run, result, busy] = useAction(tenant);
  const id = String(user['id']);
  return html`<span class="row">
    <button type="button" disabled=${busy} aria-label=${`Approve KYC of ${String(user['name'])}`} onClick=${() => void run(`/v1/test_helpers/users/${id}/kyc`, { status: 'approved' })}>Approve</button>
    <button type="button" disabled=${busy} aria-label=${`Reject KYC of ${String(user['name'])}`} onClick=${() => void run(`/v1/test_helpers/users/${id}/kyc`, { status: 'rejected', rejection_reason: 'Rejected from the inspector' })}>Reject</button>
    ${result}
  </span>`;
}

function FaultForm({ tenant }: { tenant: string }) {
  const [text, setText] = useState('{ "match": "POST /v1/quotes", "times": 1, "fault": { "type": "error", "code": "upstream_unavailable" } }');
  const [run, result, busy] = useAction(tenant);
  const [error, setError] = useState<string | null>(null);
  const submit = (e: Event): void => {
    e.preventDefault();
    try {
      setError(null);
      void run('/v1/test_helpers/faults', JSON.parse(text));
    } catch {
      setError('The plan is not valid JSON.');
    }
  };
  return html`<section aria-labelledby="faults-h" class="card">
    <h2 id="faults-h">Add a fault plan</h2>
    <form onSubmit=${submit}>
      <label for="fault-plan">Plan (JSON body of POST /v1/test_helpers/faults)</label>
      <textarea id="fault-plan" rows="3" value=${text} onInput=${(e: Event) => setText((e.target as HTMLTextAreaElement).value)}></textarea>
      <button type="submit" disabled=${busy}>Add fault plan</button>
    </form>
    ${error ? html`<p role="alert" class="err">${error}</p>` : result}
  </section>`;
}

// Shown when the sandbox has the price helper route (GET/POST /v1/test_helpers/price).
function PriceForm({ tenant }: { tenant: string }) {
  const { data } = useData<Json>(`api/tenants/${enc(tenant)}/price`);
  const [rate, setRate] = useState<string | null>(null);
  const [run, result, busy] = useAction(tenant);
  if (!data || typeof data['mid_rate'] !== 'string') return null;
  const value = rate ?? String(data['mid_rate']);
  return html`<section aria-labelledby="price-h" class="card">
    <h2 id="price-h">Price feed</h2>
    <p>Mid rate <code>${String(data['mid_rate'])}</code> BRL per USDT, spread ${String(data['spread_bps'])} bps, ${data['available'] ? 'available' : 'unavailable'}.</p>
    <form class="row" onSubmit=${(e: Event) => (e.preventDefault(), void run('/v1/test_helpers/price', { mid_rate: value }))}>
      <label for="mid-rate">Mid rate</label>
      <input id="mid-rate" inputmode="decimal" value=${value} onInput=${(e: Event) => setRate((e.target as HTMLInputElement).value)} />
      <button type="submit" disabled=${busy}>Set price</button>
      <button type="button" disabled=${busy} onClick=${() => void run('/v1/test_helpers/price', { available: !data['available'] })}>${data['available'] ? 'Make unavailable' : 'Make available'}</button>
    </form>
    ${result}
  </section>`;
}

// The tenant's own limits and timings, read-only (its price is the form above); "set by this
// tenant" marks what it changed itself, the rest being the sandbox's defaults.
function SettingsCard({ settings }: { settings: Json | undefined }) {
  if (!settings) return null;
  const changed = new Set((settings['changed'] as string[] | undefined) ?? []);
  const mark = (path: string): unknown => (changed.has(path) ? html` <span class="muted">(set by this tenant)</span>` : null);
  const limits = settings['limits'] as Record<string, Json>;
  const timings = settings['timings'] as Json;
  return html`<section aria-labelledby="settings-h" class="card">
    <h2 id="settings-h">Limits and timings of this tenant</h2>
    <dl class="fields">
      ${['platform', 'partner', 'user'].map(
        (level) => html`<div><dt>${level} limit (BRL)</dt><dd>daily <code>${String(limits[level]?.['daily'])}</code>${mark(`limits.${level}.daily`)}, monthly <code>${String(limits[level]?.['monthly'])}</code>${mark(`limits.${level}.monthly`)}</dd></div>`,
      )}
      <div><dt>platform scope</dt><dd><code>${String(limits['platform_scope'])}</code></dd></div>
      ${['quote_ttl_seconds', 'deposit_window_seconds', 'settlement_delay_seconds'].map(
        (name) => html`<div><dt>${name.replaceAll('_', ' ')}</dt><dd><code>${String(timings[name])}</code>${mark(`timings.${name}`)}</dd></div>`,
      )}
    </dl>
  </section>`;
}

function TenantPage({ tenant }: { tenant: string }) {
  const { data, error } = useData<Json>(`api/tenants/${enc(tenant)}`);
  if (error) return html`<p role="alert" class="err">${error}</p>`;
  if (!data) return html`<p aria-busy="true">Loading...</p>`;
  const rows = (k: string): Json[] => data[k] as Json[];
  return html`<div>
    <h1>Tenant <code>${tenant}</code>${data['default'] ? ' (default)' : ''}</h1>
    <div class="grid2">
      <${Clock} tenant=${tenant} now=${String(data['now'])} />
      <section aria-labelledby="keys-h" class="card">
        <h2 id="keys-h">API keys and webhook endpoints</h2>
        <ul>${rows('api_keys').map((k) => html`<li><code>${String(k['key_prefix'])}...</code> ${String(k['name'])}${k['revoked'] ? ' (revoked)' : ''}</li>`)}</ul>
        <ul>${rows('webhook_endpoints').map((e) => html`<li><code>${String(e['url'])}</code> <${Status} value=${e['status']} /> secret <code>${String(e['secret_prefix'])}...</code>, ${String(e['deliveries'])} deliveries<${Circuit} circuit=${e['circuit'] as Json | undefined} /></li>`)}</ul>
      </section>
    </div>
    <${Table}
      caption="Conversions"
      rows=${rows('conversions')}
      columns=${[
        ['Id', (r: Json) => html`<a href=${conversionHref(tenant, String(r['id']))}>${String(r['id'])}</a>`],
        ['Type', (r: Json) => r['transaction_type']],
        ['Status', (r: Json) => html`<${Status} value=${r['status']} />`],
        ['Expected', (r: Json) => `${String(r['expected_source_amount'])} ${String(r['source_currency'])}`],
        ['Created', (r: Json) => r['created_at']],
      ]}
    />
    <${Table}
      caption="Users"
      rows=${rows('users')}
      columns=${[
        ['Id', (r: Json) => html`<code>${String(r['id'])}</code>`],
        ['Name', (r: Json) => r['name']],
        ['KYC', (r: Json) => html`<${Status} value=${r['kyc_status']} />`],
        ['Actions', (r: Json) => html`<${KycActions} tenant=${tenant} user=${r} />`],
      ]}
    />
    <${Table}
      caption="Quotes"
      rows=${rows('quotes')}
      columns=${[
        ['Id', (r: Json) => html`<code>${String(r['id'])}</code>`],
        ['Status', (r: Json) => html`<${Status} value=${r['status']} />`],
        ['Rate', (r: Json) => r['exchange_rate']],
        ['Expires', (r: Json) => r['expires_at']],
      ]}
    />
    <${Table}
      caption="Transactions"
      rows=${rows('transactions')}
      columns=${[
        ['Id', (r: Json) => html`<code>${String(r['id'])}</code>`],
        ['Status', (r: Json) => html`<${Status} value=${r['status']} />`],
        ['Amount', (r: Json) => `${String(r['source_amount'])} BRL`],
      ]}
    />
    <${PriceForm} tenant=${tenant} />
    <${SettingsCard} settings=${data['settings'] as Json | undefined} />
    <${FaultForm} tenant=${tenant} />
  </div>`;
}

const FAIL_REASONS = ['pix_expired', 'pix_rejected', 'crypto_deposit_expired', 'crypto_deposit_rejected', 'settlement_failed', 'compliance_rejected'];

/** `1 attempt`, `2 attempts`. */
const plural = (n: number, word: string): string => `${String(n)} ${word}${n === 1 ? '' : 's'}`;

function ConversionActions({ tenant, conversion, machine }: { tenant: string; conversion: Json; machine: readonly Json[] }) {
  const id = String(conversion['id']);
  const state = String(conversion['status']);
  const allowed = allowedActions(machine, state);
  const [amount, setAmount] = useState(String(conversion['expected_source_amount']));
  const [settle, setSettle] = useState(false);
  const [reason, setReason] = useState(FAIL_REASONS[0] as string);
  const [run, result, busy] = useAction(tenant);
  const helper = `/v1/test_helpers/conversions/${id}`;
  const kind = conversion['transaction_type'] === 'pix_onramp' ? 'Pix payment' : 'USDT deposit';
  return html`<section aria-labelledby="actions-h" class="card">
    <h2 id="actions-h">Actions</h2>
    ${allowed.size === 0 ? html`<p data-testid="no-actions">No action: a conversion in <code>${state}</code> is finished.</p>` : null}
    ${allowed.has('deposit')
      ? html`<form class="row" onSubmit=${(e: Event) => (e.preventDefault(), void run(`${helper}/deposit`, { amount, settle }))}>
          <label for="deposit-amount">Amount</label>
          <input id="deposit-amount" inputmode="decimal" value=${amount} onInput=${(e: Event) => setAmount((e.target as HTMLInputElement).value)} />
          <label><input type="checkbox" checked=${settle} onChange=${(e: Event) => setSettle((e.target as HTMLInputElement).checked)} /> settle now</label>
          <button type="submit" disabled=${busy}>Simulate ${kind}</button>
        </form>`
      : null}
    ${allowed.has('fail')
      ? html`<form class="row" onSubmit=${(e: Event) => (e.preventDefault(), void run(`${helper}/fail`, { reason }))}>
          <label for="fail-reason">Reason</label>
          <select id="fail-reason" value=${reason} onChange=${(e: Event) => setReason((e.target as HTMLSelectElement).value)}>
            ${FAIL_REASONS.map((r) => html`<option value=${r}>${r}</option>`)}
          </select>
          <button type="submit" disabled=${busy}>Fail</button>
        </form>`
      : null}
    ${allowed.has('expire') || allowed.has('liquidate') || allowed.has('cancel')
      ? html`<div class="row">
          ${allowed.has('expire') ? html`<button type="button" disabled=${busy} onClick=${() => void run(`${helper}/expire`)}>Expire</button>` : null}
          ${allowed.has('liquidate') ? html`<button type="button" disabled=${busy} onClick=${() => void run(`/v1/conversions/${id}/liquidate`)}>Liquidate</button>` : null}
          ${allowed.has('cancel') ? html`<button type="button" disabled=${busy} onClick=${() => void run(`/v1/conversions/${id}/cancel`)}>Cancel</button>` : null}
        </div>`
      : null}
    ${result}
  </section>`;
}

/** An endpoint's circuit, when it is not plainly closed: open until when, or half-open, and what it delays. */
function Circuit({ circuit }: { circuit: Json | undefined }) {
  if (!circuit || (circuit['state'] === 'closed' && circuit['consecutive_failures'] === 0)) return null;
  const state = circuit['state'] === 'open' ? `circuit open until ${String(circuit['open_until'])}` : circuit['state'] === 'half_open' ? 'circuit half-open (one trial attempt goes)' : 'circuit closed';
  return html`, <span data-testid="circuit">${state}, ${plural(Number(circuit['consecutive_failures']), 'attempt')} in a row without an answer, ${circuit['deferred'] === 1 ? '1 delivery' : `${String(circuit['deferred'])} deliveries`} delayed</span>`;
}

function Delivery({ tenant, delivery }: { tenant: string; delivery: Json }) {
  const [run, result, busy] = useAction(tenant);
  const attempts = delivery['attempts'] as Json[];
  const last = attempts[attempts.length - 1];
  // One string: htm drops text that runs over a line break, and with it the spaces between the parts.
  const answer = last === undefined ? '' : `, ${last['status'] === null ? 'no answer' : `receiver answered ${String(last['status'])}`} in ${String(last['latency_ms'])} ms`;
  const retry = delivery['next_attempt_at'] ? `, next retry ${String(delivery['next_attempt_at'])}` : '';
  return html`<li class="delivery" data-testid="delivery">
    <${Status} value=${delivery['status']} /> to <code>${String(delivery['url'])}</code>${`, ${plural(attempts.length, 'attempt')}${answer}${retry}`}${delivery['deferred'] ? html` (<span data-testid="deferred">delayed by the endpoint's open circuit; due by the schedule at ${String((delivery['deferred'] as Json)['scheduled_at'])}</span>)` : ''} <button type="button" disabled=${busy} onClick=${() => void run(`/v1/webhook_deliveries/${String(delivery['id'])}/redeliver`)}>Redeliver</button>
    ${result}
    <details><summary>Signed payload</summary><pre>${String(delivery['payload'])}</pre></details>
  </li>`;
}

function ConversionPage({ tenant, id }: { tenant: string; id: string }) {
  const { data, error } = useData<Json>(`api/tenants/${enc(tenant)}/conversions/${enc(id)}`);
  const machine = useData<Json[]>('api/machines/conversion');
  if (error) return html`<p role="alert" class="err">${error}</p>`;
  if (!data) return html`<p aria-busy="true">Loading...</p>`;
  const conversion = data['conversion'] as Json;
  const timeline = data['timeline'] as Json[];
  const requests = data['requests'] as Json[];
  return html`<div>
    <p><a href=${tenantHref(tenant)}>Back to the tenant</a></p>
    <h1>Conversion <code>${id}</code> <${Status} value=${conversion['status']} /></h1>
    <section aria-labelledby="diagram-h" class="card">
      <h2 id="diagram-h">Path on the conversion machine</h2>
      ${machine.data ? diagram(html, machine.data as never, data['path'] as string[], String(conversion['status'])) : null}
      <p>Path: <span data-testid="path">${(data['path'] as string[]).join(' → ')}</span></p>
    </section>
    <div class="grid2">
      <${ConversionActions} tenant=${tenant} conversion=${conversion} machine=${machine.data ?? []} />
      <${Clock} tenant=${tenant} now=${String(data['now'])} />
    </div>
    <section aria-labelledby="timeline-h" class="card">
      <h2 id="timeline-h">Timeline</h2>
      <ol class="timeline" data-testid="timeline">
        ${timeline.map((step) => {
          const event = step['event'] as Json | null;
          return html`<li>
            <time>${String(step['at'])}</time> ${step['from'] === null ? 'created as' : html`<${Status} value=${step['from']} /> →`} <${Status} value=${step['to']} />
            ${step['trigger'] ? html` <span class="muted">(${String(step['trigger'])})</span>` : null}
            ${event ? html` emitted <code>${String(event['type'])}</code>` : html` <span class="muted">no event</span>`}
            ${(step['deliveries'] as Json[]).length > 0 ? html`<ul>${(step['deliveries'] as Json[]).map((d) => html`<${Delivery} tenant=${tenant} delivery=${d} />`)}</ul>` : null}
          </li>`;
        })}
      </ol>
    </section>
    <section aria-labelledby="fields-h" class="card"><h2 id="fields-h">Fields</h2><${Fields} object=${conversion} /></section>
    <${Table}
      caption="Requests that touched it"
      rows=${requests}
      columns=${[
        ['Request id', (r: Json) => html`<code>${String(r['request_id'])}</code>`],
        ['Method', (r: Json) => r['method']],
        ['Path', (r: Json) => r['path']],
        ['Status', (r: Json) => r['status']],
      ]}
    />
  </div>`;
}

function RequestsPage() {
  const [filter, setFilter] = useState({ status: '', path: '', request_id: '' });
  const query = useMemo(() => new URLSearchParams(Object.entries(filter).filter(([, v]) => v !== '')).toString(), [filter]);
  const { data } = useData<Json[]>(`api/requests${query ? `?${query}` : ''}`);
  const field = (name: keyof typeof filter, label: string) =>
    html`<label for=${`f-${name}`}>${label}</label><input id=${`f-${name}`} value=${filter[name]} onInput=${(e: Event) => setFilter({ ...filter, [name]: (e.target as HTMLInputElement).value })} />`;
  return html`<div>
    <h1>Request log</h1>
    <form class="row" role="search" aria-label="Filter the request log" onSubmit=${(e: Event) => e.preventDefault()}>
      ${field('status', 'Status (404 or 4xx)')} ${field('path', 'Path contains')} ${field('request_id', 'Request id')}
    </form>
    <${Table}
      caption="Requests, newest first"
      rows=${data ?? []}
      columns=${[
        ['Request id', (r: Json) => html`<code>${String(r['request_id'])}</code>`],
        ['Method', (r: Json) => r['method']],
        ['Path', (r: Json) => r['path']],
        ['Status', (r: Json) => html`<span class=${Number(r['status']) >= 400 ? 'err' : ''}>${String(r['status'])}</span>`],
        ['Latency', (r: Json) => `${String(r['latency_ms'])} ms`],
        ['Replay', (r: Json) => (r['replayed'] ? 'replayed' : '')],
        ['Fault', (r: Json) => r['fault'] ?? ''],
        ['Objects', (r: Json) => (r['object_ids'] as string[]).join(', ')],
      ]}
    />
  </div>`;
}

function Search() {
  const [q, setQ] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    const matches = await get<Json[]>(`api/search?q=${enc(q)}`);
    const first = matches[0];
    if (!first) return setMessage(`Nothing found for ${q}.`);
    setMessage(null);
    const tenant = String(first['tenant_id']);
    if (first['conversion_id']) location.hash = conversionHref(tenant, String(first['conversion_id']));
    else if (first['kind'] === 'request') location.hash = `#/requests`;
    else location.hash = tenantHref(tenant);
  };
  return html`<form role="search" class="search" onSubmit=${submit}>
    <label for="search">Search by id</label>
    <input id="search" type="search" placeholder="conversion, quote, user, req_, pix_e2e_id, usdt_tx_hash" value=${q} onInput=${(e: Event) => setQ((e.target as HTMLInputElement).value)} />
    <button type="submit">Find</button>
    ${message ? html`<span role="status">${message}</span>` : null}
  </form>`;
}

function TokenForm() {
  const [value, setValue] = useState('');
  const submit = (e: Event): void => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, value);
    needsToken = false;
    connect();
    bump();
  };
  return html`<form class="token" onSubmit=${submit}>
    <h1>Operator's token</h1>
    <p>This console is guarded: enter the operator's token (the deployment's <code>CONTROL_TOKEN</code>). It stays in this tab only (sessionStorage) and is sent as a header.</p>
    <label for="token">Token</label>
    <input id="token" type="password" autocomplete="off" value=${value} onInput=${(e: Event) => setValue((e.target as HTMLInputElement).value)} />
    <button type="submit">Open</button>
  </form>`;
}

function App() {
  const hash = useHash();
  const tenants = useData<Summary[]>('api/tenants');
  useVersion();
  const parts = hash.slice(2).split('/').map(decodeURIComponent);
  let page;
  if (needsToken) page = html`<${TokenForm} />`;
  else if (parts[0] === 'requests') page = html`<${RequestsPage} />`;
  else if (parts[0] === 't' && parts[1] && parts[2] === 'c' && parts[3]) page = html`<${ConversionPage} tenant=${parts[1]} id=${parts[3]} />`;
  else if (parts[0] === 't' && parts[1]) page = html`<${TenantPage} tenant=${parts[1]} />`;
  else if (tenants.data?.[0]) page = html`<${TenantPage} tenant=${tenants.data[0].id} />`;
  else page = html`<p aria-busy="true">Loading...</p>`;
  return html`<div>
    <a class="skip" href="#main" onClick=${(e: Event) => (e.preventDefault(), document.getElementById('main')?.focus())}>Skip to content</a>
    <header>
      <strong>pix-usdt sandbox inspector</strong>
      <nav aria-label="Main">
        <a href="#/requests">Request log</a>
        ${(tenants.data ?? []).map((t, i) => html`<a href=${tenantHref(t.id)} title=${t.problem ?? ''}>${t.default ? 'Default tenant' : `Tenant ${i + 1}`}${t.problem ? ' (cannot be shown)' : ''}</a>`)}
      </nav>
      <${Search} />
      <span class="live" role="status" data-testid="live">${live ? 'Live' : 'Offline'}</span>
    </header>
    <main id="main" tabindex="-1">${page}</main>
  </div>`;
}

const style = document.createElement('style');
style.textContent = CSS;
document.head.append(style);
connect();
render(html`<${App} />`, document.getElementById('app') as HTMLElement);
