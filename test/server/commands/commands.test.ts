/**
 * The commands that drive a running server, end to end: the built binary in child processes
 * (`serve`, `listen`, `trigger`, `logs tail`, `resend`) and a real receiver (this process) that
 * verifies every forwarded delivery with `constructEvent`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIGGERS } from '../../../src/testing/index.js';
import { constructEvent, isWebhookVerificationError } from '../../../src/webhooks/index.js';
import { type Child, type Ready, exitCode, run, serve, stopAll, waitFor } from '../helpers.js';

interface Verified {
  id: string;
  type: string;
  objectId: string;
  /** `null` when the signature verified; else the verification failure's reason. */
  failure: string | null;
}

/** A partner's receiver: verifies each delivery with the endpoint's secret, answers 200, or 400 when it does not verify. */
interface Receiver {
  url: string;
  events: Verified[];
  /** The secrets of every endpoint forwarding here (each listen registers its own). */
  secrets: string[];
  /** Verification tolerance in seconds (default 300, constructEvent's own default). */
  toleranceSeconds: number;
  close(): void;
}

async function startReceiver(): Promise<Receiver> {
  const state: Receiver = { url: '', events: [], secrets: [], toleranceSeconds: 300, close: () => undefined };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      constructEvent(body, req.headers, state.secrets, { toleranceSeconds: state.toleranceSeconds }).then(
        (event) => {
          state.events.push({ id: event.id, type: event.type, objectId: String((event.data.object as { id?: string }).id), failure: null });
          res.writeHead(200).end('ok');
        },
        (error: unknown) => {
          const parsed = JSON.parse(body) as { id: string; type: string; data: { object: { id: string } } };
          state.events.push({ id: parsed.id, type: parsed.type, objectId: parsed.data.object.id, failure: isWebhookVerificationError(error) ? error.reason : String(error) });
          res.writeHead(400).end('bad signature');
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  state.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return state;
}

const envOf = (ready: Ready): NodeJS.ProcessEnv => ({ PIX_USDT_SANDBOX_URL: ready.url, PIX_USDT_API_KEY: ready.api_key });

/** The JSON lines printed so far. */
function jsonLines(child: Child): Array<Record<string, unknown>> {
  return child
    .stdout()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Runs a command to its end; answers its exit code and its JSON lines. */
async function runToEnd(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | string; lines: Array<Record<string, unknown>>; child: Child }> {
  const child = run(args, env);
  const code = await exitCode(child);
  return { code, lines: child.stdout().includes('{') ? jsonLines(child) : [], child };
}

/** Polls `check` every 20 ms for up to 15 s. */
async function eventually<T>(check: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function api<T>(ready: Ready, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`${ready.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ready.api_key}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** Starts `listen --json` forwarding to `receiver`; resolves once its endpoint is registered. */
async function startListen(ready: Ready, receiver: Receiver, extra: string[] = []): Promise<{ child: Child; endpointId: string }> {
  const child = run(['listen', '--json', '--forward-to', receiver.url, ...extra], envOf(ready));
  const first = await waitFor(child, () => jsonLines(child)[0], 'the ready line of listen');
  expect(first).toMatchObject({ kind: 'ready', forward_to: receiver.url });
  expect(String(first['secret'])).toMatch(/^whsec_/);
  receiver.secrets.push(String(first['secret']));
  return { child, endpointId: String(first['endpoint_id']) };
}

afterAll(stopAll);

describe('listen and trigger', () => {
  let ready: Ready;
  let receiver: Receiver;
  let listen: { child: Child; endpointId: string };

  beforeAll(async () => {
    // No flag: loopback receivers work out of the box in the sandbox environment (plain http).
    ({ ready } = await serve());
    receiver = await startReceiver();
    listen = await startListen(ready, receiver);
  });

  afterAll(() => receiver.close());

  // Each scenario, the event it must end in, and the object of that event: 'user' or 'conversion'.
  const cases: Array<[string[], string, 'user' | 'conversion']> = [
    [['user.kyc_pending'], 'user.kyc_pending', 'user'],
    [['user.kyc_approved'], 'user.kyc_approved', 'user'],
    [['user.kyc_rejected'], 'user.kyc_rejected', 'user'],
    [['conversion.created'], 'conversion.created', 'conversion'],
    [['conversion.completed'], 'conversion.completed', 'conversion'],
    [['conversion.completed', '--direction', 'offramp', '--amount', '12.50'], 'conversion.completed', 'conversion'],
    ...(['under_funded', 'over_funded', 'duplicate_deposit', 'wrong_address', 'late_post_window'].map(
      (reason) => [['conversion.standby', '--reason', reason], 'conversion.standby', 'conversion'] as [string[], string, 'conversion'],
    )),
    [['conversion.failed', '--reason', 'compliance_rejected'], 'conversion.failed', 'conversion'],
    [['conversion.expired'], 'conversion.expired', 'conversion'],
    [['conversion.canceled'], 'conversion.canceled', 'conversion'],
    [['transaction.sending_pix'], 'transaction.sending_pix', 'conversion'],
  ];

  it('the cases here and below cover every scenario of trigger --list', () => {
    const covered = new Set([...cases.map(([args]) => args[0]), 'conversion.abandoned']);
    expect([...covered].sort()).toEqual(Object.keys(TRIGGERS).sort());
  });

  it.each(cases)('trigger %j: the event reaches the receiver through listen, signed', async (args, eventType, object) => {
    const { code, lines, child } = await runToEnd(['trigger', ...args, '--json'], envOf(ready));
    expect(code, child.stderr()).toBe(0);
    const result = lines[0] as { ok: boolean; created: Array<{ object: string; id: string }>; conversion: { id: string; status: string; standby_reason: string | null } | null };
    expect(result.ok).toBe(true);
    if (args.includes('--reason') && eventType === 'conversion.standby') expect(result.conversion?.standby_reason).toBe(args[args.indexOf('--reason') + 1]);
    const id = object === 'user' ? (result.created.find((c) => c.object === 'user')?.id as string) : (result.conversion?.id as string);
    // transaction.sending_pix is about the conversion's transaction: match on the event type only.
    const event = await eventually(
      () => receiver.events.find((e) => e.type === eventType && (eventType.startsWith('transaction.') || e.objectId === id)),
      `${eventType} of ${id}`,
    );
    expect(event.failure).toBeNull();
    // listen printed one line for it, with the receiver's status.
    const line = await waitFor(listen.child, () => jsonLines(listen.child).find((l) => l['event_id'] === event.id), `listen's line for ${event.id}`);
    expect(line).toMatchObject({ kind: 'delivery', event_type: eventType, status: 200 });
    expect(line['latency_ms']).toEqual(expect.any(Number));
    expect(String(line['delivery_id'])).not.toBe('null');
  });

  it('the user of --user is used, and the amount of --amount', async () => {
    const user = await api<{ id: string }>(ready, 'POST', '/v1/users', { external_id: 'partner-own', name: 'Own User', document_type: 'cpf', document_number: '52998224725' }, { 'idempotency-key': 'own-user' });
    const { code, lines } = await runToEnd(['trigger', 'conversion.created', '--user', user.body.id, '--amount', '42.00', '--json'], envOf(ready));
    expect(code).toBe(0);
    const conversion = (lines[0] as { conversion: { id: string } }).conversion;
    const fetched = await api<{ user_id: string; source_currency: string }>(ready, 'GET', `/v1/conversions/${conversion.id}`);
    expect(fetched.body.user_id).toBe(user.body.id);
    const created = (lines[0] as { created: Array<{ object: string; detail: string }> }).created;
    expect(created.find((c) => c.object === 'quote')?.detail).toMatch(/^42\.00 BRL/);
  });

  it('resend <delivery-id>: the same event reaches the receiver again', async () => {
    const { lines } = await runToEnd(['trigger', 'user.kyc_pending', '--json'], envOf(ready));
    const userId = (lines[0] as { created: Array<{ id: string }> }).created[0]?.id as string;
    const event = await eventually(() => receiver.events.find((e) => e.type === 'user.kyc_pending' && e.objectId === userId), 'the first delivery');
    const line = await waitFor(listen.child, () => jsonLines(listen.child).find((l) => l['event_id'] === event.id && l['delivery_id'] !== null), 'the delivery id');
    const resent = await runToEnd(['resend', String(line['delivery_id']), '--json'], envOf(ready));
    expect(resent.code, resent.child.stderr()).toBe(0);
    expect(resent.lines[0]).toMatchObject({ kind: 'resent', delivery_id: line['delivery_id'], event_id: event.id });
    await eventually(() => (receiver.events.filter((e) => e.id === event.id).length === 2 ? true : undefined), 'the second delivery');
    expect(receiver.events.filter((e) => e.id === event.id).every((e) => e.failure === null)).toBe(true);
  });

  it('resend of an unknown delivery exits 1 and says so', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const { code, child } = await runToEnd(['resend', id], envOf(ready));
    expect(code).toBe(1);
    expect(child.stderr()).toContain(`resend ${id}: 404 webhook_delivery_not_found`);
  });

  it('Ctrl-C (SIGINT) stops listen and deletes its endpoint', async () => {
    const own = await startListen(ready, receiver);
    const before = await api<unknown>(ready, 'GET', `/v1/webhook_endpoints/${own.endpointId}`);
    expect(before.status).toBe(200);
    own.child.process.kill('SIGINT');
    expect(await exitCode(own.child)).toBe(0);
    expect(own.child.stderr()).toContain(`endpoint ${own.endpointId} deleted`);
    const after = await api<{ data: Array<{ id: string }> }>(ready, 'GET', '/v1/webhook_endpoints');
    expect(after.body.data.map((e) => e.id)).not.toContain(own.endpointId);
  });
});

describe('time travel: trigger conversion.abandoned and resend --failed', () => {
  // These advance the tenant's clock by days. Deliveries are signed with the sandbox's time
  // today (issue 13's signing-time defect, another change), so the receiver verifies with a
  // tolerance wide enough for the jump; everything else is as above.
  let ready: Ready;
  let receiver: Receiver;

  beforeAll(async () => {
    ({ ready } = await serve());
    receiver = await startReceiver();
    receiver.toleranceSeconds = 10 * 86_400;
  });
  afterAll(() => receiver.close());

  it('conversion.abandoned: a standby conversion left 7 days', async () => {
    await startListen(ready, receiver, ['--events', 'conversion.*']);
    const { code, lines, child } = await runToEnd(['trigger', 'conversion.abandoned', '--json'], envOf(ready));
    expect(code, child.stderr()).toBe(0);
    const result = lines[0] as { conversion: { id: string; status: string }; created: Array<{ object: string; detail: string }> };
    expect(result.conversion.status).toBe('abandoned');
    expect(result.created.some((c) => c.object === 'clock' && /advanced 604801 s/.test(c.detail))).toBe(true);
    const event = await eventually(() => receiver.events.find((e) => e.type === 'conversion.abandoned' && e.objectId === result.conversion.id), 'conversion.abandoned');
    expect(event.failure).toBeNull();
    // --events conversion.* subscribed to conversions only.
    expect(receiver.events.filter((e) => !e.type.startsWith('conversion.'))).toEqual([]);
  });

  it('conversion.standby --reason window_expired: a deposit left unconfirmed past the window', async () => {
    await startListen(ready, receiver, ['--events', 'conversion.standby']);
    const { code, lines } = await runToEnd(['trigger', 'conversion.standby', '--reason', 'window_expired', '--json'], envOf(ready));
    expect(code).toBe(0);
    const result = lines[0] as { conversion: { id: string; standby_reason: string } };
    expect(result.conversion.standby_reason).toBe('window_expired');
    const event = await eventually(() => receiver.events.find((e) => e.type === 'conversion.standby' && e.objectId === result.conversion.id), 'conversion.standby');
    expect(event.failure).toBeNull();
  });

  it('resend --failed redelivers every failed delivery', async () => {
    const endpoint = await api<{ id: string; secret: string }>(ready, 'POST', '/v1/webhook_endpoints', { url: 'https://127.0.0.1:1/nowhere', event_types: ['user.kyc_pending'] }, { 'idempotency-key': 'dead-endpoint' });
    expect(endpoint.status).toBe(201);
    await runToEnd(['trigger', 'user.kyc_pending'], envOf(ready));
    // Every retry of the schedule (about 31 hours) fails against a closed port: dead letter. The
    // advance steps through each retry at its instant and answers once they were made.
    await api(ready, 'POST', '/v1/test_helpers/clock/advance', { seconds: 2 * 86_400, wait_for_deliveries: true });
    const list = await api<{ data: Array<{ id: string; status: string }> }>(ready, 'GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries?status=failed`);
    expect(list.body.data.length).toBeGreaterThan(0);
    const { code, child } = await runToEnd(['resend', '--failed', '--json'], envOf(ready));
    expect(code, child.stderr()).toBe(0);
    // --failed --json: one JSON array, printed once done.
    const lines = JSON.parse(child.stdout()) as Array<Record<string, unknown>>;
    const resent = lines.map((l) => l['delivery_id']);
    for (const d of list.body.data) expect(resent).toContain(d.id);
    expect(lines.every((l) => l['kind'] === 'resent' && l['status'] === 'pending')).toBe(true);
    const after = await api<{ data: unknown[] }>(ready, 'GET', `/v1/webhook_endpoints/${endpoint.body.id}/deliveries?status=failed`);
    expect(after.body.data).toEqual([]);
    // Nothing failed any more: `[]`, exit 0 (a script parses the same document either way).
    const none = await runToEnd(['resend', '--failed', '--json'], envOf(ready));
    expect(none.code).toBe(0);
    expect(none.child.stdout()).toBe('[]\n');
    expect(none.child.stderr()).toContain('no failed delivery to resend');
  });
});
