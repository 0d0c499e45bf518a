/**
 * The rules of `/v1` on every path the server answers (issue 27): each answer carries an
 * `x-request-id`, each refusal is the envelope `{ code, message, request_id }` with that id, a
 * malformed path or body is a 400 with the reason (never a dropped connection or a 500), and a
 * body nested deeper than 64 levels is refused before anything walks it. The paths outside `/v1`:
 * the request log feed `/_sandbox/logs`, the inspector `/_inspector/` (its gate on the server and
 * its handler), and whatever else reaches the engine.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../../src/server/http/start.js';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ port: 0, host: '127.0.0.1', sandbox: { seed: 3 } }, () => undefined);
});
afterAll(() => server.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with the path sent as written (fetch would normalize it). Rejects when the connection drops. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers, path }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => {
        text += c;
        // An endless stream: its head is what this test reads.
        if (res.headers['content-type'] === 'text/event-stream') res.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The answer is the envelope with `code`, and its `request_id` is its `x-request-id`. */
function expectEnvelope(answer: Answer, status: number, code: string, message?: RegExp): Record<string, unknown> {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const id = answer.headers['x-request-id'] as string;
  expect(id).toMatch(/^req_[0-9a-f]{32}$/);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  expect(body).toMatchObject({ code, message: expect.any(String), request_id: id });
  if (message) expect(body['message']).toMatch(message);
  return body;
}

const auth = (): Record<string, string> => ({ authorization: `Bearer ${server.sandbox.apiKey}` });
const deep = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('/_sandbox/logs', () => {
  it('refusals are the envelope: 405 for another method (with Allow), 401 without a key or with an unknown one', async () => {
    const post = await send('POST', '/_sandbox/logs', auth());
    expectEnvelope(post, 405, 'method_not_allowed', /GET \/_sandbox\/logs/);
    expect(post.headers['allow']).toBe('GET');
    expectEnvelope(await send('GET', '/_sandbox/logs'), 401, 'authentication_failed');
    expectEnvelope(await send('GET', '/_sandbox/logs', { authorization: `Bearer sk_test_${'x'.repeat(32)}` }), 401, 'authentication_failed');
  });

  it('the stream itself carries an x-request-id', async () => {
    const stream = await send('GET', '/_sandbox/logs', auth());
    expect(stream.status).toBe(200);
    expect(stream.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  });
});

describe('/_inspector/', () => {
  const actions = `/_inspector/api/tenants/${'TENANT'}/actions`;
  const actionPath = (): string => actions.replace('TENANT', server.sandbox.tenantId);
  const console = { 'x-inspector': '1', 'content-type': 'application/json' };

  it('a non-loopback Host: 403 in the envelope', async () => {
    expectEnvelope(await send('GET', '/_inspector/api/tenants', { host: 'attacker.example' }), 403, 'forbidden', /loopback/);
  });

  it('unknown routes 404, other methods 405, an action without the console header 403: all in the envelope', async () => {
    expectEnvelope(await send('GET', '/_inspector/api/nothing'), 404, 'not_found');
    expectEnvelope(await send('GET', '/_inspector/nothing'), 404, 'not_found');
    expectEnvelope(await send('GET', '/_inspector/api/tenants/no-such-tenant'), 404, 'not_found');
    expectEnvelope(await send('PUT', '/_inspector/api/tenants'), 405, 'method_not_allowed');
    expectEnvelope(await send('DELETE', '/_inspector/'), 405, 'method_not_allowed');
    expectEnvelope(await send('POST', actionPath(), { 'content-type': 'application/json' }, '{}'), 403, 'forbidden', /X-Inspector/);
  });

  it('a path that is not valid percent-encoding: 400, the connection kept', async () => {
    const body = expectEnvelope(await send('GET', '/_inspector/api/tenants/%E0%A4%A'), 400, 'validation_error', /percent-encoding/);
    expect(body['details']).toEqual({ issues: [{ path: 'path', message: 'Invalid percent-encoding' }] });
    expectEnvelope(await send('GET', '/_inspector/%FF'), 400, 'validation_error');
  });

  it('an action body nested 100,000 levels deep: 400 with the reason, not a 500', async () => {
    const nested = `{"path":"/v1/test_helpers/clock/advance","body":${deep(100_000)}}`;
    const body = expectEnvelope(await send('POST', actionPath(), console, nested), 400, 'validation_error', /nests deeper than 64 levels/);
    expect(body['details']).toEqual({ issues: [{ path: '', message: 'At most 64 levels of nested arrays and objects' }] });
    expectEnvelope(await send('POST', actionPath(), console, '{"path":'), 400, 'invalid_json');
    expectEnvelope(await send('POST', actionPath(), console, '[1]'), 400, 'invalid_json');
    expectEnvelope(await send('POST', actionPath(), console, '{"path":"/v1/users"}'), 400, 'validation_error', /does not call POST \/v1\/users/);
  });

  it('answers that succeed carry an x-request-id too: the page, its script, the API, an action (the engine\'s id)', async () => {
    for (const path of ['/_inspector/', '/_inspector/app.js', '/_inspector/api/tenants']) {
      const answer = await send('GET', path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['x-request-id'], path).toMatch(/^req_[0-9a-f]{32}$/);
    }
    const redirect = await send('GET', '/_inspector');
    expect(redirect.status).toBe(308);
    expect(redirect.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    const clock = await send('POST', actionPath(), console, '{"path":"/v1/test_helpers/clock/advance","body":{"seconds":1}}');
    expect(clock.status).toBe(200);
    expect(clock.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  });
});

describe('every other path, and /v1 itself', () => {
  it.each(['/', '/favicon.ico', '/_sandbox/other', '/_inspectorx', '/v2/users'])('%s is answered by the engine in the envelope', async (path) => {
    const answer = await send('GET', path, auth());
    expect([401, 404]).toContain(answer.status);
    expectEnvelope(answer, answer.status, answer.status === 404 ? 'not_found' : 'authentication_required');
  });

  it('a /v1 body nested deeper than 64 levels is refused with the same reason; 64 levels are read', async () => {
    const headers = { ...auth(), 'content-type': 'application/json', 'idempotency-key': 'deep-1' };
    const tooDeep = `{"url":"https://example.com/hooks","event_types":["*"],"description":${deep(65 - 1)}}`;
    expectEnvelope(await send('POST', '/v1/webhook_endpoints', headers, tooDeep), 400, 'validation_error', /nests deeper than 64 levels/);
    // 64 levels: read, and refused by the schema instead (description is a string).
    const atLimit = `{"url":"https://example.com/hooks","event_types":["*"],"description":${deep(64 - 1)}}`;
    const schema = expectEnvelope(await send('POST', '/v1/webhook_endpoints', { ...headers, 'idempotency-key': 'deep-2' }, atLimit), 400, 'validation_error');
    expect(JSON.stringify(schema['details'])).toContain('description');
  });
});
