/**
 * JSON Schema 2020-12 (the dialect of OpenAPI 3.1) from the zod/mini schemas of src/models,
 * through zod's own `z.toJSONSchema`. Named schemas become `components.schemas` and are
 * referenced by `$ref`; open enums keep their known values as `x-extensible-enum`.
 * @module
 */
import { readFileSync, readdirSync } from 'node:fs';
import * as z from 'zod/mini';
import * as models from '../../src/models/index.js';
import { CAPABILITIES } from '../../src/sandbox/core/capabilities.js';
import { EXTENSION_SCHEMAS } from './extensions.js';

/** A JSON Schema object (loosely typed: this is output, not input). */
export type JsonSchema = Record<string, unknown>;

type AnySchema = z.ZodMiniType;

/** Every zod schema src/models exports, by export name (alphabetical: module namespaces are). */
export const MODEL_SCHEMAS: ReadonlyMap<string, AnySchema> = new Map(
  Object.entries(models as Record<string, unknown>).filter(
    (entry): entry is [string, AnySchema] => typeof entry[1] === 'object' && entry[1] !== null && '_zod' in entry[1],
  ),
);

/** The export name of a model schema, or `undefined` for a schema that src/models does not export. */
export function modelName(schema: AnySchema): string | undefined {
  for (const [name, candidate] of MODEL_SCHEMAS) if (candidate === schema) return name;
  return undefined;
}

/** A model schema by name (src/models, then the sandbox extensions of ./extensions.ts); throws when there is none. */
export function modelSchema(name: string): AnySchema {
  const schema = MODEL_SCHEMAS.get(name) ?? (EXTENSION_SCHEMAS as Record<string, AnySchema>)[name];
  if (schema === undefined) throw new Error(`Neither src/models nor scripts/docs/extensions.ts exports a schema named ${name}.`);
  return schema;
}

const REF_PREFIX = '#/components/schemas/';

function baseOptions(io: 'input' | 'output'): Parameters<typeof z.toJSONSchema>[1] {
  return {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    override(ctx) {
      // What refinements and route checks require, in JSON Schema terms.
      if (ctx.zodSchema === models.OnrampQuoteBody || ctx.zodSchema === models.OfframpQuoteBody) {
        ctx.jsonSchema['oneOf'] = [{ required: ['source_amount'] }, { required: ['target_amount'] }];
      }
      if (ctx.zodSchema === models.CreateTenantBody) {
        const properties = ctx.jsonSchema['properties'] as Record<string, JsonSchema>;
        (properties['capabilities'] as JsonSchema)['items'] = { type: 'string', enum: [...CAPABILITIES] };
      }
      // The operator's fields of a tenant's limits (src/sandbox/core/settings.ts, tenantRules).
      if (ctx.zodSchema === models.SetLimitsBody) {
        const properties = ctx.jsonSchema['properties'] as Record<string, JsonSchema>;
        Object.assign(properties['platform_scope'] as JsonSchema, {
          readOnly: true,
          description: "The operator's (serve --shared-platform-limits): accepted when it is the scope in force, so that a GET body posts back; any other value is refused.",
        });
        (properties['platform'] as JsonSchema)['description'] =
          "The caller tenant's platform level; under shared platform limits the operator's, accepted only as in force.";
      }
      // A list of distinct items (a refinement): its `minItems` comes from zod, `uniqueItems` from here.
      if (models.isDistinctList(ctx.zodSchema)) ctx.jsonSchema['uniqueItems'] = true;
      const known = models.openEnumValues(ctx.zodSchema);
      if (known !== undefined) ctx.jsonSchema['x-extensible-enum'] = [...known];
      // Response metadata is parsed loosely (bundle size), but the API answers strings only.
      if ('AnsweredMetadata' in models && ctx.zodSchema === (models as Record<string, unknown>)['AnsweredMetadata']) {
        for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
        Object.assign(ctx.jsonSchema, { type: 'object', additionalProperties: { type: 'string' } });
      }
    },
  };
}

function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/**
 * The components of `names`, converted in one pass so that a named schema nested in another
 * (a KycSubmission inside a KycStatusView) becomes a `$ref`. Responses are described as the
 * API writes them (`io: 'output'`), request bodies as a partner sends them (`io: 'input'`).
 */
export function componentSchemas(names: readonly string[], io: 'input' | 'output'): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const name of names) registry.add(modelSchema(name), { id: name });
  const { schemas } = z.toJSONSchema(registry, { ...baseOptions(io), uri: (id) => `${REF_PREFIX}${id}` }) as { schemas: Record<string, JsonSchema> };
  const descriptions = modelDescriptions();
  for (const [name, note] of Object.entries(REFINEMENT_NOTES)) descriptions.set(name, `${descriptions.get(name) ?? ''} ${note}`.trim());
  const out: Record<string, JsonSchema> = {};
  for (const name of names) {
    const description = descriptions.get(name);
    out[name] = description === undefined ? clean(schemas[name] as JsonSchema) : { description, ...clean(schemas[name] as JsonSchema) };
  }
  return out;
}

/** An inline schema (a query, path parameters, or a body src/models does not name). */
export function inlineSchema(schema: AnySchema, io: 'input' | 'output'): JsonSchema {
  return clean(z.toJSONSchema(schema, baseOptions(io)) as JsonSchema);
}

// Refinements (`.check(z.refine(...))`) have no JSON Schema form of their own; what they require is said here too.
const REFINEMENT_NOTES: Record<string, string> = {
  CreateQuoteBody: 'Exactly one of `source_amount` and `target_amount` (`oneOf`).',
};

/**
 * The first TSDoc comment above each `export const X =` of src/models and ./extensions.ts, by
 * name: the description of each component comes from the same place as the typedoc page.
 */
export function modelDescriptions(): Map<string, string> {
  const files = [
    ...readdirSync(new URL('../../src/models/', import.meta.url))
      .filter((f) => f.endsWith('.ts'))
      .sort()
      .map((f) => new URL(`../../src/models/${f}`, import.meta.url)),
    new URL('./extensions.ts', import.meta.url),
  ];
  const out = new Map<string, string>();
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*export const (\w+)\s*=/g)) {
      const text = (m[1] as string)
        .split('\n')
        .map((line) => line.replace(/^\s*\*\s?/, '').trim())
        .filter((line) => line !== '' && !line.startsWith('@'))
        .join(' ');
      if (!out.has(m[2] as string) && text !== '') out.set(m[2] as string, text.replace(/\{@link (\w+)\}/g, '`$1`'));
    }
  }
  return out;
}

/** `{ $ref }` to a component. */
export const ref = (name: string): JsonSchema => ({ $ref: `${REF_PREFIX}${name}` });
