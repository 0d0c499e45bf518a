/**
 * The sandbox validates requests with compiled schemas (src/models/compile.ts, zod's `compile()`):
 * for every schema of every route, the compiled parse must give what the interpreted one gives,
 * value and issues alike, for values the API accepts (generated from docs/openapi.json) and for
 * values it refuses (one field replaced by any JSON, an unknown field, any JSON at all).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { codegenAllowed, compiled } from '../../../src/models/compile.js';
import { parseRequest } from '../../../src/models/index.js';
import { ALL_ROUTES, type RouteDef } from '../../../src/sandbox/routes.js';
import { type Operation, operations, resolve, valid } from '../../docs/openapi-values.js';

const ids = fc.uuid({ version: 4 });
const PARTS = ['params', 'query', 'body'] as const;

// The operation of docs/openapi.json a route answers (`/v1/users/:id` is `/v1/users/{id}`).
function operationOf(route: RouteDef): Operation | undefined {
  const template = route.path.replace(/:(\w+)/g, '{$1}');
  return operations.find((o) => o.template === template && o.method === route.method)?.operation;
}

// Values the API accepts for one part of a route, from the document (an empty object where it says nothing).
function accepted(route: RouteDef, part: (typeof PARTS)[number]): fc.Arbitrary<unknown> {
  const operation = operationOf(route);
  if (part === 'body') {
    const schema = operation?.requestBody?.content['application/json'].schema;
    return schema === undefined ? fc.constant({}) : valid(schema, ids);
  }
  const where = part === 'params' ? 'path' : 'query';
  const parameters = (operation?.parameters ?? []).map((p) => resolve(p as Record<string, unknown>) as { name: string; in: string; required?: boolean; schema: Record<string, unknown> }).filter((p) => p.in === where);
  const fields = Object.fromEntries(parameters.map((p) => [p.name, valid(p.schema, ids)]));
  return fc.record(fields, { requiredKeys: parameters.filter((p) => p.required === true || where === 'path').map((p) => p.name) });
}

// Values it refuses, or may: one field changed to any JSON, an unknown field added, anything at all.
function mangled(values: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const json = fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    fc.tuple(values, fc.nat(), json).map(([value, at, replacement]) => {
      if (typeof value !== 'object' || value === null) return replacement;
      const keys = Object.keys(value);
      if (keys.length === 0) return { field: replacement };
      return { ...value, [keys[at % keys.length] as string]: replacement };
    }),
    fc.tuple(values, fc.string({ maxLength: 12 }), json).map(([value, key, extra]) => (typeof value === 'object' && value !== null ? { ...value, [`x_${key}`]: extra } : value)),
    fc.anything({ maxDepth: 2 }),
  );
}

const schemas = ALL_ROUTES.flatMap((route) =>
  PARTS.flatMap((part) => {
    const schema = route[part] as z.ZodMiniType | undefined;
    return schema === undefined ? [] : [{ name: `${route.method} ${route.path} ${part}`, route, part, schema }];
  }),
);

describe('compiled request schemas', () => {
  it('are compiled here (Node runs generated code), one per schema', () => {
    expect(codegenAllowed()).toBe(true);
    expect(schemas.length).toBeGreaterThan(40);
    for (const { name, schema } of schemas) {
      expect(compiled(schema), name).not.toBe(schema);
      expect(compiled(schema), name).toBe(compiled(schema));
    }
  });

  it.each(schemas)('$name: the compiled parse is the interpreted one, accepted and refused values alike', ({ route, part, schema }) => {
    const fast = compiled(schema);
    const values = accepted(route, part);
    let refusals = 0;
    fc.assert(
      fc.property(fc.oneof(values, mangled(values)), (value) => {
        const expected = parseRequest(schema, value);
        if (!expected.ok) refusals++;
        expect(parseRequest(fast, value)).toEqual(expected);
      }),
      { numRuns: 40, seed: 34 },
    );
    // The refused half ran: its issues were compared too.
    expect(refusals).toBeGreaterThan(0);
  });
});
