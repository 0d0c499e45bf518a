// The server against docs/openapi.json, property-based (issue 17): requests generated from the
// document (valid values from each schema, and values that break it) go to the real server on
// loopback; every answer's status must be one the operation declares, and its body must validate
// against the schema declared for that status (ajv, JSON Schema 2020-12, as OpenAPI 3.1 says).
// The number of cases is bounded; the seed is printed by fast-check on a failure.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/server/http/start.js';
import { type Operation, type Parameter, type Schema, doc, operations, resolve, valid } from './openapi-values.js';
import { runPositive } from './openapi-positive.js';

const DOC_ID = 'https://pix-usdt.local/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(doc as unknown as Schema, DOC_ID);

const RUNS = 400;
const POSITIVE_RUNS = Number(process.env['FUZZ_POSITIVE_RUNS'] ?? 3);
// Deterministic unless FUZZ_SEED is set; fast-check prints the seed and the shrunk request on failure.
const SEED = Number(process.env['FUZZ_SEED'] ?? 20_261_123);
const pointer = (ref: string): string => `${DOC_ID}${ref}`;

/** A value for a schema: usually a valid one, sometimes anything JSON (to reach the refusals). */
const value = (schema: Schema, ids: fc.Arbitrary<string>): fc.Arbitrary<unknown> =>
  fc.oneof({ weight: 4, arbitrary: valid(schema, ids) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });

interface Case {
  method: string;
  path: string;
  operationId: string;
  body: unknown;
  key: 'valid' | 'none' | 'bad' | 'limited';
}

const byId = new Map(operations.map(({ operation }) => [operation.operationId, operation]));

function caseOf(ids: fc.Arbitrary<string>): fc.Arbitrary<Case> {
  return fc.constantFrom(...operations).chain(({ template, method, operation }) => {
    const parameters = (operation.parameters ?? []).filter((p): p is Parameter => !('$ref' in p));
    const path = fc.tuple(
      ...parameters
        .filter((p) => p.in === 'path')
        .map((p) => fc.tuple(fc.constant(p.name), fc.oneof({ weight: 5, arbitrary: ids }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) }))),
    );
    const query = fc.tuple(...parameters.filter((p) => p.in === 'query').map((p) => fc.option(fc.tuple(fc.constant(p.name), value(p.schema, ids)), { nil: undefined })));
    const schema = operation.requestBody?.content['application/json'].schema;
    const body = schema === undefined ? fc.constant(undefined) : fc.option(value(schema, ids), { nil: undefined, freq: 8 });
    const key = fc.constantFrom<Case['key']>('valid', 'valid', 'valid', 'valid', 'valid', 'valid', 'none', 'bad', 'limited');
    return fc.tuple(path, query, body, key).map(([pathParams, queryParams, bodyValue, keyKind]) => {
      let filled = template;
      for (const [name, v] of pathParams) filled = filled.replace(`{${name}}`, encodeURIComponent(v));
      const search = new URLSearchParams();
      for (const q of queryParams) if (q !== undefined) search.append(q[0], typeof q[1] === 'string' ? q[1] : JSON.stringify(q[1]));
      const qs = search.toString();
      return { method, path: qs === '' ? filled : `${filled}?${qs}`, operationId: operation.operationId, body: bodyValue, key: keyKind };
    });
  });
}

let server: RunningServer;
const fixtureIds: string[] = [];
let limitedKey = '';

async function call(method: string, path: string, body?: unknown, key = server.sandbox.apiKey): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'idempotency-key': crypto.randomUUID() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, text: await res.text() };
}

beforeAll(async () => {
  server = await startServer(
    { port: 0, host: '127.0.0.1', sandbox: { seed: 17 } },
    () => undefined,
  );
  // Real ids, so that generated requests reach the handlers and not only the 404s.
  const user = JSON.parse((await call('POST', '/v1/users', { external_id: 'fuzz-1', name: 'Ana Fuzz', document_type: 'cpf', document_number: '52998224725' })).text) as { id: string };
  await call('POST', `/v1/test_helpers/users/${user.id}/kyc`, { status: 'approved' });
  const quote = JSON.parse(
    (
      await call('POST', '/v1/quotes', {
        user_id: user.id,
        source_currency: 'BRL',
        target_currency: 'USDT',
        source_amount: '100.00',
        destination_wallet_address: `0x${'a'.repeat(40)}`,
        destination_wallet_network: 'polygon',
      })
    ).text,
  ) as { id: string };
  const conversion = JSON.parse((await call('POST', `/v1/quotes/${quote.id}/accept`, {})).text) as { id: string };
  const endpoint = JSON.parse((await call('POST', '/v1/webhook_endpoints', { url: 'https://partner.example/hooks', event_types: ['*'] })).text) as { id: string };
  fixtureIds.push(user.id, quote.id, conversion.id, endpoint.id);
  // A key of another tenant that may only read users: the 403s.
  const limited = JSON.parse((await call('POST', '/v1/test_helpers/tenants', { capabilities: ['users:read'] })).text) as { api_key: string };
  limitedKey = limited.api_key;
  expect(fixtureIds.every((id) => /^[0-9a-f-]{36}$/.test(id))).toBe(true);
});

afterAll(async () => {
  server?.forceClose();
  await server?.close();
});

const validators = new Map<string, ValidateFunction>();
function validatorOf(ref: string): ValidateFunction {
  let v = validators.get(ref);
  if (v === undefined) {
    v = ajv.getSchema(pointer(ref)) ?? ajv.compile({ $ref: pointer(ref) });
    validators.set(ref, v);
  }
  return v;
}

/** The `$ref` of the schema a status declares (a shared error response, or the success model), or null for no body. */
function declaredSchema(operation: Operation, status: string): string | null {
  const response = operation.responses[status] as Operation['responses'][string];
  if (response.$ref !== undefined) return `${response.$ref}/content/application~1json/schema`;
  return (response.content?.['application/json'].schema['$ref'] as string | undefined) ?? null;
}

/** The status is one the operation declares, the body validates against the schema declared for it, an error's code is one its status documents. */
function checkAnswer(operation: Operation, statusCode: number, text: string, what: string): void {
  const status = String(statusCode);
  expect(Object.keys(operation.responses), `undeclared status: ${what}`).toContain(status);
  const ref = declaredSchema(operation, status);
  if (ref === null) {
    expect(text, what).toBe('');
  } else {
    const validate = validatorOf(ref);
    const ok = validate(JSON.parse(text));
    expect(ok ? [] : validate.errors, what).toEqual([]);
  }
  if (statusCode >= 400) {
    const errorSchema = resolve({ $ref: declaredSchema(operation, status) as string }) as { properties?: { code?: { 'x-extensible-enum'?: string[] } } };
    const known = errorSchema.properties?.code?.['x-extensible-enum'];
    expect(known, `the document lists no codes for ${status}`).toBeDefined();
    expect(known, what).toContain((JSON.parse(text) as { code: string }).code);
  }
}

describe('the server answers what docs/openapi.json declares', () => {
  it(`${RUNS} generated requests: declared statuses, bodies valid against the declared schemas`, async () => {
    const seen = new Map<string, Set<number>>();
    const ids = fc.oneof(fc.constantFrom(...fixtureIds), fc.uuid({ version: 4 }));
    await fc.assert(
      fc.asyncProperty(caseOf(ids), async (c) => {
        const operation = byId.get(c.operationId) as Operation;
        const keys = { valid: server.sandbox.apiKey, bad: `sk_test_${'x'.repeat(32)}`, none: '', limited: limitedKey };
        const key = keys[c.key];
        const headers: Record<string, string> = { 'idempotency-key': crypto.randomUUID() };
        if (key !== '') headers['authorization'] = `Bearer ${key}`;
        if (c.body !== undefined) headers['content-type'] = 'application/json';
        const res = await fetch(`${server.url}${c.path}`, { method: c.method, headers, ...(c.body === undefined ? {} : { body: JSON.stringify(c.body) }) });
        const text = await res.text();
        const what = `${c.method} ${c.path} ${JSON.stringify(c.body)} -> ${res.status} ${text}`;
        checkAnswer(operation, res.status, text, what);
        (seen.get(operation.operationId) ?? seen.set(operation.operationId, new Set()).get(operation.operationId))?.add(res.status);
        // A created fault plan would change later answers: remove it at once.
        if (c.path.startsWith('/v1/test_helpers/faults') && c.method === 'POST') await call('DELETE', '/v1/test_helpers/faults');
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
    // The run reached the handlers, not only the refusals.
    const statuses = new Set([...seen.values()].flatMap((s) => [...s]));
    expect([...statuses].some((s) => s < 300)).toBe(true);
    expect([...statuses].filter((s) => s >= 400).length).toBeGreaterThan(4);
    expect(statuses).toContain(403);
  });

  // Issue 21: what the document says is valid is accepted, on every operation (test helpers
  // included), on one tenant; another tenant's scenario is untouched (test/docs/openapi-positive.ts).
  it(`valid requests from the document are accepted on every operation (${POSITIVE_RUNS} each); another tenant's scenario answers as before`, async () => {
    const seen = await runPositive(server, {
      seed: SEED,
      runs: POSITIVE_RUNS,
      check: (operation, status, text) => checkAnswer(operation, status, text, `${operation.operationId} -> ${status} ${text}`),
    });
    expect([...seen.keys()].sort()).toEqual(operations.map((o) => o.operation.operationId).sort());
  }, 60_000);
});
