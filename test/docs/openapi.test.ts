import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { ROOT, loadRoutes } from '../../scripts/docs/generated.js';
import { buildOpenApi, openApiPath } from '../../scripts/docs/openapi.js';
import { RESPONSES } from '../../scripts/docs/responses.js';
import { PixUsdt } from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { CAPABILITIES } from '../../src/sandbox/core/capabilities.js';
import { ERROR_STATUS } from '../../src/sandbox/core/errors.js';

type Operation = {
  operationId: string;
  parameters?: Array<{ $ref?: string; name?: string; in?: string; required?: boolean }>;
  requestBody?: unknown;
  responses: Record<string, unknown>;
  'x-sandbox-only'?: boolean;
  'x-capability'?: string;
};
type Doc = {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, { type: string; scheme: string }> };
};

const doc = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')) as Doc;
const routes = await loadRoutes();
const METHODS = ['get', 'post', 'patch', 'delete', 'put'];

function operations(d: Doc): Array<{ method: string; path: string; op: Operation }> {
  return Object.entries(d.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

describe('docs/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document according to @seriousme/openapi-schema-validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('the validator is a real one: it refuses a path parameter that is not required', async () => {
    const broken = structuredClone(doc);
    const op = broken.paths['/v1/users/{id}']?.['get'];
    const param = op?.parameters?.find((p) => p.in === 'path');
    expect(param).toBeDefined();
    if (param) param.required = false;
    const result = await new Validator().validate(broken as unknown as Record<string, unknown>);
    expect(result.valid).toBe(false);
  });

  it('lists every route of the sandbox with its method, and nothing else', () => {
    const documented = operations(doc).map(({ method, path }) => `${method} ${path}`).sort();
    const declared = routes.map((r) => `${r.method} ${openApiPath(r.path)}`).sort();
    expect(documented).toEqual(declared);
  });

  it('declares every path parameter, and the Idempotency-Key the route asks for on every mutation', () => {
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.path)]?.[route.method.toLowerCase()] as Operation;
      const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
      const pathParams = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      expect(pathParams, `${route.method} ${route.path}`).toEqual(names);
      const refs = (op.parameters ?? []).map((p) => p.$ref).filter(Boolean);
      if (route.method === 'GET') {
        expect(refs, `${route.method} ${route.path}`).toEqual([]);
      } else {
        const expected = route.idempotency === 'required' ? 'IdempotencyKey' : 'IdempotencyKeyOptional';
        expect(refs, `${route.method} ${route.path}`).toEqual([`#/components/parameters/${expected}`]);
      }
      expect(op['x-capability']).toBe(route.capability);
    }
  });

  it('marks the sandbox extensions, and only them, x-sandbox-only', () => {
    const ops = operations(doc);
    const helpers = ops.filter(({ path }) => path.startsWith('/v1/test_helpers/'));
    expect(helpers.length).toBeGreaterThan(0);
    for (const { path, op } of ops) expect(op['x-sandbox-only'] === true, path).toBe(path.startsWith('/v1/test_helpers/'));
  });

  it('answers 201 for creations, 204 for the user delete, 200 otherwise, each with the error envelope for errors', () => {
    // docs/decisions.md, "Success statuses".
    const creations = [
      'POST /v1/users',
      'POST /v1/users/{id}/limit-upgrade-requests',
      'POST /v1/quotes',
      'POST /v1/quotes/{id}/accept',
      'POST /v1/transactions',
      'POST /v1/webhook_endpoints',
      'POST /v1/test_helpers/tenants',
      'POST /v1/test_helpers/faults',
    ];
    for (const { method, path, op } of operations(doc)) {
      const key = `${method} ${path}`;
      const expected = key === 'DELETE /v1/users/{id}' ? '204' : creations.includes(key) ? '201' : '200';
      expect(Object.keys(op.responses).filter((s) => s.startsWith('2')), key).toEqual([expected]);
      for (const status of ['400', '401', '403', '500']) expect(op.responses[status], `${key} ${status}`).toBeDefined();
    }
    const responses = (doc.components as unknown as { responses: Record<string, { content: unknown }> }).responses;
    for (const [name, response] of Object.entries(responses)) {
      const status = Number(name.replace('Error', ''));
      const codes = Object.entries(ERROR_STATUS)
        .filter(([, s]) => s === status)
        .map(([code]) => code);
      expect(codes.length, name).toBeGreaterThan(0);
      expect(response.content, name).toEqual({
        'application/json': { schema: { allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }], properties: { code: { type: 'string', 'x-extensible-enum': codes } } } },
      });
    }
  });

  it('lists the 404 of an id in a request body, the one-amount rule and the capabilities (issue 17)', () => {
    expect(Object.keys(doc.paths['/v1/quotes']?.['post']?.responses ?? {})).toContain('404');
    expect(Object.keys(doc.paths['/v1/transactions']?.['post']?.responses ?? {})).toContain('404');
    // A body without an id of another resource has no 404.
    expect(Object.keys(doc.paths['/v1/users']?.['post']?.responses ?? {})).not.toContain('404');
    const quoteBody = doc.components.schemas['CreateQuoteBody'] as { oneOf: Array<{ oneOf?: unknown }> };
    for (const branch of quoteBody.oneOf) expect(branch.oneOf).toEqual([{ required: ['source_amount'] }, { required: ['target_amount'] }]);
    const tenantBody = doc.components.schemas['CreateTenantBody'] as { properties: { capabilities: { items: { enum: string[] } } } };
    expect(tenantBody.properties.capabilities.items.enum).toEqual([...CAPABILITIES]);
  });

  it('resolves every $ref', () => {
    const text = JSON.stringify(doc);
    for (const [, target] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
      let node: unknown = doc;
      for (const part of (target as string).split('/')) node = (node as Record<string, unknown> | undefined)?.[part];
      expect(node, target).toBeDefined();
    }
  });

  it('has the bearer scheme and both servers', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes['bearerAuth']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.servers.map((s) => s.url)).toEqual(['https://sandbox.pix-usdt.com', 'https://api.pix-usdt.com']);
  });

  it('describes response enums as extensible and request enums as closed', () => {
    const conversion = doc.components.schemas['Conversion'] as { properties: Record<string, Record<string, unknown>> };
    expect(conversion.properties['status']?.['x-extensible-enum']).toContain('standby');
    const users = doc.paths['/v1/users']?.['get'] as Operation;
    const kyc = users.parameters?.find((p) => p.name === 'kyc_status') as { schema: { enum: string[] } } | undefined;
    expect(kyc?.schema.enum).toContain('approved');
  });

  it('fails with a clear message for a route missing from the response table', () => {
    const route = { method: 'POST' as const, path: '/v1/unknown', capability: 'users:read' as const, idempotency: 'required' as const };
    expect(() => buildOpenApi([route], { version: '0.0.0' })).toThrow(/responses\.ts has no entry for the sandbox route POST \/v1\/unknown/);
  });
});

// Issue 36: the document was wider than the route (it took `capabilities: []`, a repeated
// capability and `snapshot: {}`, which the route refuses). Both verdicts, for the same bodies.
describe('the document and the route agree on the bodies of POST /v1/test_helpers/tenants', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(doc as unknown as Record<string, unknown>, 'https://pix-usdt.local/openapi.json');
  const schema = (doc.paths['/v1/test_helpers/tenants']?.['post']?.requestBody as { content: { 'application/json': { schema: { $ref: string } } } }).content['application/json'].schema;
  const documentAccepts = ajv.compile({ $ref: `https://pix-usdt.local/openapi.json${schema.$ref}` });
  const sandbox = createSandbox({ seed: 36 });
  const snapshot = sandbox.exportTenant();
  const routeAccepts = async (body: unknown): Promise<boolean> => {
    const answer = await sandbox.fetch('/v1/test_helpers/tenants', { method: 'POST', headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (answer.status !== 201 && answer.status !== 400) throw new Error(`${answer.status} ${await answer.text()}`);
    return answer.status === 201;
  };

  it.each([
    ['no capabilities', { capabilities: [] }, false],
    ['a capability twice', { capabilities: ['users:read', 'users:read'] }, false],
    ['an empty snapshot', { snapshot: {} }, false],
    ['a snapshot of another format', { snapshot: { ...snapshot, format: 'pix-usdt-sandbox' } }, false],
    ['a snapshot without its tenant', { snapshot: { ...snapshot, tenant: undefined } }, false],
    ['an unknown capability', { capabilities: ['users:fly'] }, false],
    ['an unknown field', { name: 'x' }, false],
    ['nothing', {}, true],
    ['one capability', { capabilities: ['users:read'] }, true],
    ['two capabilities', { capabilities: ['users:read', 'sandbox:control'] }, true],
    ['a snapshot of a tenant', { snapshot }, true],
  ])('%s: the same verdict', async (_, body, accepted) => {
    expect(documentAccepts(body), JSON.stringify(documentAccepts.errors)).toBe(accepted);
    expect(await routeAccepts(body)).toBe(accepted);
  });
});

describe('the client and the document agree', () => {
  const UUID = '00000000-0000-4000-8000-000000000000';
  const calls: Array<{ method: string; path: string }> = [];
  const client = new PixUsdt({
    apiKey: `sk_test_${'d'.repeat(32)}`,
    maxRetries: 0,
    validation: 'off',
    fetch: async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      calls.push({ method: request.method, path: new URL(request.url).pathname });
      return Response.json({ data: [], next_cursor: null });
    },
  });

  // Arguments by parameter name: `id` a UUID, bodies, params and options empty objects.
  function argsOf(fn: (...args: unknown[]) => unknown): unknown[] {
    const head = /^[^(]*\(([^)]*)\)/.exec(fn.toString())?.[1] ?? '';
    return head
      .split(',')
      .map((p) => p.trim().split(/[\s=]/)[0])
      .filter((p): p is string => p !== undefined && p !== '')
      .map((name) => (name === 'id' ? UUID : {}));
  }

  function methodsOf(target: object, prefix: string): Array<{ name: string; call: () => unknown }> {
    const out: Array<{ name: string; call: () => unknown }> = [];
    for (const [key, value] of Object.entries(target)) {
      if (typeof value !== 'object' || value === null || key.startsWith('_')) continue;
      const proto = Object.getPrototypeOf(value) as object;
      if (proto === Object.prototype) continue;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const fn = (value as Record<string, unknown>)[name];
        if (name === 'constructor' || name.startsWith('_') || typeof fn !== 'function') continue;
        out.push({ name: `${prefix}${key}.${name}`, call: () => (fn as (...a: unknown[]) => unknown).apply(value, argsOf(fn as (...a: unknown[]) => unknown)) });
      }
      out.push(...methodsOf(value, `${prefix}${key}.`));
    }
    return out;
  }

  const methods = methodsOf(client, '');

  it('finds the client methods of DESIGN.md', () => {
    const names = methods.map((m) => m.name);
    for (const name of ['users.create', 'quotes.accept', 'conversions.liquidate', 'webhookEndpoints.listDeliveries', 'testHelpers.users.kyc']) {
      expect(names).toContain(name);
    }
  });

  const templates = operations(doc).map(({ method, path, op }) => ({
    method,
    path,
    operationId: op.operationId,
    pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));

  it.each(methods.map((m) => [m.name, m] as const))('%s calls a documented operation with that operationId', async (_name, method) => {
    calls.length = 0;
    await method.call();
    expect(calls).toHaveLength(1);
    const { method: verb, path } = calls[0] as { method: string; path: string };
    const match = templates.find((t) => t.method === verb && t.pattern.test(path));
    expect(match, `${method.name} sends ${verb} ${path}, which docs/openapi.json does not document`).toBeDefined();
    expect(match?.operationId).toBe(method.name);
  });

  it('every operation of the response table belongs to a client method, unless marked noClientMethod', () => {
    const names = new Set(methods.map((m) => m.name));
    for (const [route, answer] of Object.entries(RESPONSES)) {
      expect(names.has(answer.operationId), `${route}: ${answer.operationId}`).toBe(answer.noClientMethod !== true);
    }
  });
});
