// Values from docs/openapi.json for the property-based runs (test/docs/openapi-fuzz.test.ts): the
// document itself, `$ref` resolution, and an arbitrary of the values each schema accepts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ROOT } from '../../scripts/docs/generated.js';

/** A JSON Schema object of the document. */
export type Schema = Record<string, unknown>;

/** A parameter of an operation. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

/** An operation of the document. */
export interface Operation {
  operationId: string;
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { required: boolean; content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { $ref?: string; content?: { 'application/json': { schema: Schema } } }>;
}

/** The parts of the document the runs read. */
export interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, { content: { 'application/json': { schema: Schema } } }> };
}

/** docs/openapi.json. */
export const doc = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')) as Doc;

/** Every operation: its path template, method (upper case) and definition. */
export const operations = Object.entries(doc.paths).flatMap(([template, item]) => Object.entries(item).map(([method, operation]) => ({ template, method: method.toUpperCase(), operation })));

/** Follows `$ref`s to the schema they name. */
export function resolve(schema: Schema): Schema {
  let current = schema;
  while (typeof current['$ref'] === 'string') {
    const path = (current['$ref'] as string).replace(/^#\//, '').split('/');
    current = path.reduce<Record<string, unknown>>((node, key) => node[key.replaceAll('~1', '/').replaceAll('~0', '~')] as Record<string, unknown>, doc as unknown as Record<string, unknown>) as Schema;
  }
  return current;
}

/**
 * Values a schema accepts. `ids` stands for strings of UUID form. A request leaves `readOnly`
 * properties out (OpenAPI: they are not part of a request).
 */
export function valid(schema: Schema, ids: fc.Arbitrary<string>, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (Array.isArray(s['oneOf']) && s['properties'] === undefined) return fc.oneof(...(s['oneOf'] as Schema[]).map((b) => valid(b, ids, depth + 1)));
  if (Array.isArray(s['anyOf'])) return fc.oneof(...(s['anyOf'] as Schema[]).map((b) => valid(b, ids, depth + 1)));
  if ('const' in s) return fc.constant(s['const']);
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as unknown[]));
  const type = Array.isArray(s['type']) ? ((s['type'] as string[]).find((t) => t !== 'null') ?? 'null') : (s['type'] as string | undefined);
  switch (type) {
    case 'string': {
      const pattern = s['pattern'] as string | undefined;
      if (pattern?.includes('[0-9a-f]{8}-')) return ids;
      const minLength = (s['minLength'] as number | undefined) ?? 0;
      const maxLength = (s['maxLength'] as number | undefined) ?? 2048;
      if (pattern !== undefined) return fc.stringMatching(new RegExp(pattern)).filter((v) => v.length >= minLength && v.length <= maxLength);
      return fc.string({ minLength, maxLength: Math.max(minLength, Math.min(maxLength, 40)) });
    }
    case 'integer':
      return fc.integer({ min: (s['minimum'] as number | undefined) ?? -5, max: (s['maximum'] as number | undefined) ?? 1_000_000 });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: (s['minimum'] as number | undefined) ?? -1e6, max: (s['maximum'] as number | undefined) ?? 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
    {
      if (depth > 4) return fc.constant([]);
      const items = valid((s['items'] as Schema | undefined) ?? {}, ids, depth + 1);
      const size = { minLength: (s['minItems'] as number | undefined) ?? 0, maxLength: 3 };
      return s['uniqueItems'] === true ? fc.uniqueArray(items, { ...size, selector: (v) => JSON.stringify(v) }) : fc.array(items, size);
    }
    case 'object': {
      const properties = Object.fromEntries(Object.entries((s['properties'] as Record<string, Schema> | undefined) ?? {}).filter(([, p]) => resolve(p)['readOnly'] !== true));
      const record = fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, valid(p, ids, depth + 1)])),
        { requiredKeys: ((s['required'] as string[] | undefined) ?? []).filter((k) => k in properties) },
      );
      // `oneOf` beside the properties: which of them may be present (exactly one amount).
      const choices = s['oneOf'] as Array<{ required?: string[] }> | undefined;
      if (choices === undefined) return record;
      const names = choices.flatMap((c) => c.required ?? []);
      return fc.tuple(record, fc.constantFrom(...names)).map(([value, keep]) => {
        const out: Record<string, unknown> = { ...value };
        for (const name of names) if (name !== keep) delete out[name];
        if (!(keep in out)) out[keep] = '10.00';
        return out;
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
