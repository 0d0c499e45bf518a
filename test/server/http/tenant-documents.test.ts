/**
 * Tenant documents against the server (issue 35): refusals are enveloped 400s over HTTP; and what
 * reached the data folder some other way (rows written by an older server, or by hand) cannot
 * make a replay write a bad status line or smuggling headers, nor take the inspector's listing
 * down, across a restart under --data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../../src/server/data/driver.js';
import { type RunningServer, startServer } from '../../../src/server/http/start.js';
import { cpf } from '../../support/fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** One HTTP/1.1 exchange over a raw socket: the bytes exactly as the server wrote them. */
function exchange(url: string, request: string): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

async function call(server: RunningServer, method: string, target: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}${target}`, {
    method,
    headers: { authorization: `Bearer ${server.sandbox.apiKey}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const endpointsOf = (tenant: Record<string, unknown>): Array<Record<string, unknown>> => (tenant['extensions'] as { webhooks: { endpoints: Array<Record<string, unknown>> } }).webhooks.endpoints;

describe('tenant documents on the server', () => {
  it('refuses bad documents with an enveloped 400; rows planted in the data folder neither smuggle a replay nor take the listing down after a restart', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-documents-'));
    dirs.push(dir);
    const start = (): Promise<RunningServer> => startServer({ port: 0, host: '127.0.0.1', sandbox: { seed: 'documents' }, data: dir }, () => undefined);
    let server = await start();
    const userBody = { external_id: 'e1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) };
    expect((await call(server, 'POST', '/v1/users', userBody, { 'idempotency-key': 'user-1' })).status).toBe(201);
    // Created after the user: no event is sent to it (the document holds it, as the issue's 13 kB document did).
    const endpoint = await call(server, 'POST', '/v1/webhook_endpoints', { url: 'https://receiver.example/hooks', event_types: ['user.created'] }, { 'idempotency-key': 'endpoint-1' });
    expect(endpoint.status, JSON.stringify(endpoint.json)).toBe(201);
    const other = (await call(server, 'POST', '/v1/test_helpers/tenants', {})).json as { tenant_id: string };
    const doc = (await call(server, 'GET', '/v1/test_helpers/tenant/snapshot')).json as { tenant: Record<string, unknown> };
    // Over HTTP, as in process: a far-future clock, a stored answer that would smuggle, a record far past the others.
    const bad: Array<[string, (t: Record<string, unknown>) => void, string]> = [
      ['a far-future clock', (t) => (t['now'] = '+275760-09-13T00:00:00.000Z'), 'snapshot.tenant.now'],
      ['a replay of status 999', (t) => ((t['idempotency'] as Array<Record<string, unknown>>)[0]!['status'] = 999), 'snapshot.tenant.idempotency.0.status'],
      ['a replay with transfer-encoding', (t) => ((t['idempotency'] as Array<{ headers: Record<string, string> }>)[0]!.headers['transfer-encoding'] = 'chunked'), 'snapshot.tenant.idempotency.0.headers.transfer-encoding'],
      ['a user at seq 2000000', (t) => ((t['users'] as Array<Record<string, unknown>>)[0]!['seq'] = 2_000_000), 'snapshot.tenant.users.0.seq'],
      // The HIGH finding's document: its one webhook endpoint at seq 2000000 was accepted (201) and filled every slot up to it.
      ['an endpoint at seq 2000000', (t) => (endpointsOf(t)[0]!['seq'] = 2_000_000), 'snapshot.tenant.extensions.webhooks.endpoints.0.seq'],
      ['an endpoint at seq 1e300', (t) => (endpointsOf(t)[0]!['seq'] = 1e300), 'snapshot.tenant.extensions.webhooks.endpoints.0.seq'],
    ];
    for (const [what, change, issue] of bad) {
      const copy = JSON.parse(JSON.stringify(doc)) as typeof doc;
      change(copy.tenant);
      const answer = await call(server, 'POST', '/v1/test_helpers/tenants', { snapshot: copy });
      expect(answer.status, what).toBe(400);
      expect(answer.json, what).toMatchObject({ code: 'validation_error', request_id: expect.stringMatching(/^req_/), details: { problem: 'damaged' } });
      expect((answer.json['details'] as { issues: Array<{ path: string }> }).issues.map((i) => i.path), what).toContain(issue);
    }
    expect((await fetch(`${server.url}/_inspector/api/tenants`).then((r) => r.json())) as unknown[]).toHaveLength(2);
    await server.close();

    // Rows an older server (or a hand) wrote: a stored answer with smuggling headers and a bad request id, and a tenant whose clock is out of range.
    const db = openSqlite(path.join(dir, 'data.db'));
    const [row] = db.all('SELECT tenant, key, data FROM idempotency WHERE key = ?', ['user-1']) as Array<{ tenant: string; key: string; data: string }>;
    const stored = JSON.parse(row!.data) as { headers: Record<string, string> };
    stored.headers = { ...stored.headers, 'transfer-encoding': 'chunked', 'content-length': '495', 'set-cookie': 'session=stolen', location: 'https://evil.example/', 'x-request-id': 'req_1\r\nx-injected: yes' };
    db.run('UPDATE idempotency SET data = ? WHERE tenant = ? AND key = ?', [JSON.stringify(stored), row!.tenant, row!.key]);
    const [tenantRow] = db.all('SELECT state FROM tenants WHERE id = ?', [other.tenant_id]) as Array<{ state: string }>;
    const state = JSON.parse(tenantRow!.state) as { clock: { realTime: boolean; at: number } };
    state.clock.at = state.clock.realTime ? 8.64e15 : 8.64e15 + 60_000;
    db.run('UPDATE tenants SET state = ? WHERE id = ?', [JSON.stringify(state), other.tenant_id]);
    db.close();

    server = await start();
    try {
      const listing = await fetch(`${server.url}/_inspector/api/tenants`);
      expect(listing.status).toBe(200);
      const tenants = (await listing.json()) as Array<{ id: string; now: string | null; problem?: string }>;
      expect(tenants.find((t) => t.id === other.tenant_id)).toMatchObject({ now: null, problem: expect.stringContaining('cannot be shown') });
      expect(tenants.find((t) => t.id === server.sandbox.tenantId)).toMatchObject({ now: expect.any(String) });
      // The replay, byte by byte: one status line, the allow-listed headers, a length that is the body's.
      const body = JSON.stringify(userBody);
      const raw = await exchange(
        server.url,
        [
          'POST /v1/users HTTP/1.1',
          `Host: ${new URL(server.url).host}`,
          `Authorization: Bearer ${server.sandbox.apiKey}`,
          'Content-Type: application/json',
          'Idempotency-Key: user-1',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Connection: close',
          '',
          body,
        ].join('\r\n'),
      );
      const [head = '', text = ''] = raw.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      expect(statusLine).toBe('HTTP/1.1 201 Created');
      const names = lines.map((l) => l.slice(0, l.indexOf(':')).toLowerCase());
      for (const name of ['transfer-encoding', 'set-cookie', 'location', 'x-injected']) expect(names).not.toContain(name);
      expect(names.filter((n) => n === 'content-length')).toHaveLength(1);
      expect(lines).toContain(`content-length: ${Buffer.byteLength(text, 'latin1')}`);
      expect(lines).toContain('idempotent-replayed: true');
      expect(lines.find((l) => l.startsWith('x-request-id: '))).toMatch(/^x-request-id: req_[0-9a-f]{32}$/);
      expect(JSON.parse(text)).toMatchObject({ external_id: 'e1' });
    } finally {
      await server.close();
    }
  });
});
