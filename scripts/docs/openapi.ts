/**
 * docs/openapi.json: an OpenAPI 3.1 document of the whole API, built from the sandbox's route
 * definitions (method, path, capability, idempotency, params/query/body schemas), the
 * response table of ./responses.ts, and the zod schemas of src/models.
 * @module
 */
import type * as z from 'zod/mini';
import { EVENT_TYPES } from '../../src/models/index.js';
import { PRODUCTION_BASE_URL, SANDBOX_BASE_URL } from '../../src/client/options.js';
import { ERROR_STATUS } from '../../src/sandbox/core/errors.js';
import { CONVERSION_MACHINE, KYC_MACHINE, QUOTE_MACHINE, TRANSACTION_MACHINE } from '../../src/sandbox/core/machines.js';
import type { RouteDef } from '../../src/sandbox/routes.js';
import { RESPONSES, type SuccessResponse } from './responses.js';
import { type JsonSchema, componentSchemas, inlineSchema, modelName, ref } from './schemas.js';

/** The parts of a route this generator reads. */
export type DocumentedRoute = Pick<RouteDef, 'method' | 'path' | 'capability' | 'idempotency' | 'rateLimited' | 'sandboxOnly' | 'params' | 'query' | 'body'>;

/** Package facts the document shows. */
export interface ApiInfo {
  version: string;
}

/** The key of a route in {@link RESPONSES}: `METHOD /path` as the sandbox declares it. */
export const routeKey = (route: Pick<RouteDef, 'method' | 'path'>): string => `${route.method} ${route.path}`;

/** `/v1/users/:id` -> `/v1/users/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');

const TEST_HELPERS = '/v1/test_helpers';
const isSandboxOnly = (route: DocumentedRoute): boolean => route.sandboxOnly === true || route.path.startsWith(`${TEST_HELPERS}/`);

// `data.object` of an event is the resource of the machine whose row emits it
// (`transaction.sending_pix` comes from the conversion machine: its object is the Conversion).
const EVENT_SOURCES = [
  { machine: CONVERSION_MACHINE, model: 'Conversion' },
  { machine: TRANSACTION_MACHINE, model: 'Transaction' },
  { machine: KYC_MACHINE, model: 'User' },
  { machine: QUOTE_MACHINE, model: 'Quote' },
] as const;

/** Event kinds by the model of their `data.object`, from the machines' rows; every catalog kind exactly once. */
export function eventObjects(): Array<{ model: string; kinds: string[] }> {
  const owner = new Map<string, string>();
  for (const { machine, model } of EVENT_SOURCES) {
    for (const row of machine.transitions) {
      if (row.event === null) continue;
      const other = owner.get(row.event);
      if (other !== undefined && other !== model) throw new Error(`${row.event} is emitted with a ${other} and with a ${model}.`);
      owner.set(row.event, model);
    }
  }
  const missing = EVENT_TYPES.filter((kind) => !owner.has(kind));
  if (missing.length > 0) throw new Error(`No state machine emits ${missing.join(', ')}: the document cannot say what data.object is.`);
  const models = [...new Set(EVENT_TYPES.map((kind) => owner.get(kind) as string))];
  return models.map((model) => ({ model, kinds: EVENT_TYPES.filter((kind) => owner.get(kind) === model) }));
}

// A body field naming another resource by id: an unknown id answers that resource's 404
// (`user_not_found` on POST /v1/quotes, `quote_not_found` on POST /v1/transactions).
const REFERENCE_FIELD = /^(user|quote|conversion|transaction|webhook_endpoint|webhook_delivery)_id$/;

function bodyFields(schema: JsonSchema): string[] {
  const branches = [schema, ...(((schema['oneOf'] ?? schema['anyOf']) as JsonSchema[] | undefined) ?? [])];
  return branches.flatMap((branch) => Object.keys((branch['properties'] as JsonSchema | undefined) ?? {}));
}

/** Whether the route's body names another resource by id. */
function referencesById(route: DocumentedRoute): boolean {
  return route.body !== undefined && bodyFields(inlineSchema(route.body, 'input')).some((field) => REFERENCE_FIELD.test(field));
}

/** Error statuses each operation lists, by when they apply. */
function errorStatuses(route: DocumentedRoute): number[] {
  const statuses = [400, 401, 403];
  if (route.params !== undefined || isSandboxOnly(route) || referencesById(route)) statuses.push(404);
  if (route.method !== 'GET') statuses.push(409, 422);
  if (route.rateLimited === true) statuses.push(429);
  statuses.push(500, 502, 503);
  return statuses;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'The request is invalid',
  401: 'The API key is missing, malformed, unknown or of the other environment',
  403: 'The API key lacks the capability',
  404: 'Not found (a resource of another tenant is not found either)',
  409: 'Conflict with the current state, or with an earlier request of the same Idempotency-Key',
  422: 'A business rule refuses the request (never retried)',
  429: 'Rate limited: honour Retry-After',
  500: 'Internal error: retried with the 250 ms, 500 ms, 1 s, 2 s, 4 s schedule',
  502: 'A dependency is unavailable: retried with backoff',
  503: 'A dependency is unavailable: retried with backoff',
};

function errorResponses(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const statuses = [...new Set(Object.values(ERROR_STATUS))].sort((a, b) => a - b);
  for (const status of statuses) {
    const codes = Object.entries(ERROR_STATUS)
      .filter(([, s]) => s === status)
      .map(([code]) => `\`${code}\``);
    const names = Object.entries(ERROR_STATUS)
      .filter(([, s]) => s === status)
      .map(([code]) => code);
    const response: Record<string, unknown> = {
      description: `${STATUS_TEXT[status] ?? 'Error'}. Codes: ${codes.join(', ')}.`,
      content: {
        'application/json': {
          // The codes this status carries; like every response enum, it may gain values.
          schema: { allOf: [ref('ErrorEnvelope')], properties: { code: { type: 'string', 'x-extensible-enum': names } } },
        },
      },
    };
    if (status === 429) response['headers'] = { 'Retry-After': { description: 'Seconds to wait before the next attempt.', schema: { type: 'integer' } } };
    out[`Error${status}`] = response;
  }
  return out;
}

function success(route: DocumentedRoute): SuccessResponse {
  const found = RESPONSES[routeKey(route)];
  if (found === undefined) {
    throw new Error(
      `scripts/docs/responses.ts has no entry for the sandbox route ${routeKey(route)}: add its success status and model to RESPONSES.`,
    );
  }
  return found;
}

function parameters(route: DocumentedRoute): unknown[] {
  const out: unknown[] = [];
  for (const [where, schema] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (schema === undefined) continue;
    const json = inlineSchema(schema, 'input');
    const required = new Set((json['required'] as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries((json['properties'] as Record<string, JsonSchema> | undefined) ?? {})) {
      out.push({ name, in: where, required: where === 'path' || required.has(name), schema: property });
    }
  }
  if (route.method !== 'GET') out.push({ $ref: route.idempotency === 'required' ? '#/components/parameters/IdempotencyKey' : '#/components/parameters/IdempotencyKeyOptional' });
  return out;
}

function requestBody(route: DocumentedRoute, bodies: Set<string>): unknown {
  const body = route.body;
  if (body === undefined) return undefined;
  const name = modelName(body);
  if (name !== undefined) bodies.add(name);
  // A body whose every field is optional may be `{}` or absent.
  const required = !(body as z.ZodMiniType).safeParse({}).success;
  return { required, content: { 'application/json': { schema: name === undefined ? inlineSchema(body, 'input') : ref(name) } } };
}

function responseBody(answer: SuccessResponse, models: Set<string>, lists: Set<string>): unknown {
  if (answer.model === null) return { description: 'No content.' };
  models.add(answer.model);
  const schemaName = answer.list === true ? `${answer.model}List` : answer.model;
  if (answer.list === true) lists.add(answer.model);
  return {
    description: answer.list === true ? `A page of ${answer.model} objects.` : `The ${answer.model}.`,
    headers: {
      'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
      ...(answer.status === 204 ? {} : { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } }),
    },
    content: { 'application/json': { schema: ref(schemaName) } },
  };
}

function tagOf(path: string): string {
  if (path.startsWith(`${TEST_HELPERS}/`) || path === TEST_HELPERS) return 'test_helpers';
  return path.split('/')[2] ?? 'other';
}

function operation(route: DocumentedRoute, used: { models: Set<string>; bodies: Set<string>; lists: Set<string> }): Record<string, unknown> {
  const answer = success(route);
  const op: Record<string, unknown> = {
    operationId: answer.operationId,
    summary: answer.summary,
    tags: [tagOf(route.path)],
    'x-capability': route.capability,
  };
  if (isSandboxOnly(route)) op['x-sandbox-only'] = true;
  if (route.rateLimited === true) op['x-rate-limited'] = true;
  const params = parameters(route);
  if (params.length > 0) op['parameters'] = params;
  const body = requestBody(route, used.bodies);
  if (body !== undefined) op['requestBody'] = body;
  const responses: Record<string, unknown> = { [String(answer.status)]: responseBody(answer, used.models, used.lists) };
  for (const status of errorStatuses(route)) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  op['responses'] = responses;
  return op;
}

function listSchema(model: string): JsonSchema {
  return {
    type: 'object',
    description: `A page of ${model} objects; \`next_cursor\` is null on the last page.`,
    properties: { data: { type: 'array', items: ref(model) }, next_cursor: { type: ['string', 'null'] } },
    required: ['data', 'next_cursor'],
    additionalProperties: {},
  };
}

function webhooks(models: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { model, kinds } of eventObjects()) {
    models.add(model);
    out[model.toLowerCase()] = {
      post: {
        summary: `Events whose \`data.object\` is the ${model} at the state change: ${kinds.map((k) => `\`${k}\``).join(', ')}`,
        description:
          'Signed with HMAC-SHA256 over `{t}.{raw_body}` keyed by the endpoint secret; verify with `constructEvent` of `pix-usdt/webhooks` (docs/webhooks.md). ' +
          'Answer 2xx within 500 ms; any other answer (or none) is retried on a schedule, and failed deliveries can be redelivered.',
        parameters: [
          { name: 'X-Service-Event-Id', in: 'header', required: true, description: 'The event id (dedupe on it).', schema: { type: 'string' } },
          {
            name: 'X-Service-Signature',
            in: 'header',
            required: true,
            description: '`t=<unix seconds>,v1=<hex HMAC-SHA256>`; one `v1=` per valid secret during a rotation.',
            schema: { type: 'string' },
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  id: { type: 'string' },
                  type: { type: 'string', 'x-extensible-enum': kinds },
                  created_at: { type: 'string' },
                  data: { type: 'object', properties: { object: ref(model) }, required: ['object'] },
                },
                required: ['id', 'type', 'created_at', 'data'],
              },
            },
          },
        },
        responses: { '200': { description: 'Acknowledged (any 2xx).' } },
      },
    };
  }
  return out;
}

/** The OpenAPI 3.1 document of `routes`. Deterministic: paths sorted, methods in route order. */
export function buildOpenApi(routes: readonly DocumentedRoute[], info: ApiInfo): Record<string, unknown> {
  const used = { models: new Set<string>(['ErrorEnvelope']), bodies: new Set<string>(), lists: new Set<string>() };
  const paths: Record<string, Record<string, unknown>> = {};
  const seen = new Set<string>();
  for (const route of routes) {
    const key = routeKey(route);
    if (seen.has(key)) throw new Error(`The sandbox declares ${key} twice.`);
    seen.add(key);
    const path = openApiPath(route.path);
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route, used);
  }
  const webhookDocs = webhooks(used.models);
  const sortedPaths = Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]]));

  const responseSchemas = componentSchemas([...used.models].sort(), 'output');
  const bodySchemas = componentSchemas([...used.bodies].sort(), 'input');
  for (const name of Object.keys(bodySchemas)) if (name in responseSchemas) throw new Error(`${name} is used both as a request body and a response.`);
  const lists = Object.fromEntries([...used.lists].sort().map((m) => [`${m}List`, listSchema(m)]));
  const schemas = Object.fromEntries(Object.entries({ ...responseSchemas, ...bodySchemas, ...lists }).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Pix and USDT Conversion Partner API',
      version: info.version,
      description:
        'Converts BRL paid by Pix into USDT and back, for a partner\'s end users. Generated from the zod schemas of `pix-usdt` ' +
        '(src/models) and the route table of its sandbox by scripts/generate-docs.ts; do not edit by hand. ' +
        'Operations marked `x-sandbox-only: true` exist only in the sandbox (404 in production). `x-capability` is the capability the API key needs. ' +
        'Response enums marked `x-extensible-enum` may gain values: treat an unknown value as valid. Amounts are decimal strings, never numbers.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: SANDBOX_BASE_URL, description: 'Sandbox (keys sk_test_...): no real money moves' },
      { url: PRODUCTION_BASE_URL, description: 'Production (keys sk_live_...)' },
    ],
    security: [{ bearerAuth: [] }],
    tags: [...new Set(routes.map((route) => tagOf(route.path)))]
      .sort()
      .map((name) => ({ name, ...(name === 'test_helpers' ? { description: 'Sandbox only.', 'x-sandbox-only': true } : {}) })),
    paths: sortedPaths,
    webhooks: webhookDocs,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: '`Authorization: Bearer sk_test_...` (sandbox) or `sk_live_...` (production).' },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description: 'Required on this mutation. The same key with the same body replays the first answer (24 hours, per tenant).',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
        IdempotencyKeyOptional: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Optional on this sandbox extension; when sent, the same key with the same body replays the first answer.',
          schema: { type: 'string', minLength: 1, maxLength: 255 },
        },
      },
      headers: {
        'X-Request-Id': { description: 'The id of the request, also in error bodies as `request_id`.', schema: { type: 'string' } },
        'Idempotent-Replayed': { description: '`true` when this answer replays the first answer of the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
      },
      responses: errorResponses(),
      schemas,
    },
  };
}

/** The document as committed: 2-space JSON and a final newline. */
export function renderOpenApi(routes: readonly DocumentedRoute[], info: ApiInfo): string {
  return `${JSON.stringify(buildOpenApi(routes, info), null, 2)}\n`;
}
