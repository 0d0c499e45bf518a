/**
 * Model schemas are built on first use (src/models/lazy.ts, issue 6 cold start). A lazy schema
 * must be indistinguishable from the one its factory builds: same class, same own keys, same
 * parse results and issues, same JSON Schema, and one identity for registries and WeakMaps.
 */
import { inspect } from 'node:util';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import * as models from '../../src/models/index.js';
import { lazy } from '../../src/models/lazy.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Each pair: a factory, called once eagerly and once through lazy().
const factories = {
  checkedString: () => z.string().check(z.regex(UUID, 'Expected a UUID')),
  looseObject: () => z.looseObject({ id: z.string(), status: models.openEnum(['a', 'b']), at: z.nullable(z.string()) }),
  strictObject: () => z.strictObject({ amount: z.optional(models.Decimal), tags: z.array(z.string()).check(z.minLength(1)) }),
  union: () =>
    z.discriminatedUnion('kind', [z.strictObject({ kind: z.literal('x'), x: z.number() }), z.strictObject({ kind: z.literal('y'), y: z.boolean() })]),
  record: () => z.record(z.string(), z.string()),
  int: () => z.int().check(z.gte(1), z.lte(100)),
};
const samples: unknown[] = [
  undefined,
  null,
  'nope',
  '123e4567-e89b-12d3-a456-426614174000',
  { id: 'u', status: 'c', at: null },
  { id: 'u', status: 'a', at: '2026-01-01T00:00:00Z', extra: true },
  { amount: '1.5', tags: [] },
  { amount: '-1', tags: ['t'], more: 1 },
  { kind: 'x', x: 1 },
  { kind: 'y', y: 'no' },
  { kind: 'z' },
  { a: 'b' },
  { a: 1 },
  0,
  50,
  101,
];

describe('lazy()', () => {
  it('calls its factory on first use only, and once', () => {
    let calls = 0;
    const schema = lazy(() => {
      calls++;
      return z.string();
    });
    expect(calls).toBe(0);
    expect(schema.safeParse('a').success).toBe(true);
    expect(schema.safeParse(1).success).toBe(false);
    expect(calls).toBe(1);
  });

  it.each(['get', 'has', 'set', 'instanceof', 'inspect', 'nesting', 'toJSONSchema'] as const)('builds on %s', (how) => {
    let calls = 0;
    const schema = lazy(() => {
      calls++;
      return z.looseObject({ a: z.string() });
    });
    expect(calls).toBe(0);
    if (how === 'get') void schema._zod;
    if (how === 'has') expect('_zod' in schema).toBe(true);
    if (how === 'set') (schema as unknown as Record<string, unknown>)['note'] = 1;
    if (how === 'instanceof') expect(schema instanceof z.ZodMiniObject).toBe(true);
    if (how === 'inspect') expect(inspect(schema)).toMatch(/^ZodMiniObject \{/);
    if (how === 'nesting') expect(z.array(schema).safeParse([{ a: 'x' }, { a: 1 }]).success).toBe(false);
    if (how === 'toJSONSchema') expect(z.toJSONSchema(schema)).toMatchObject({ type: 'object' });
    expect(calls).toBe(1);
  });

  it.each(Object.entries(factories) as Array<[string, () => z.ZodMiniType]>)('%s: the same schema as its factory builds', (_name, factory) => {
    const eager = factory();
    const schema = lazy(factory);
    expect(schema instanceof eager._zod.constr).toBe(true);
    expect(Object.getPrototypeOf(schema)).toBe(Object.getPrototypeOf(eager));
    expect(Reflect.ownKeys(schema)).toEqual(Reflect.ownKeys(eager));
    expect(Reflect.ownKeys(schema._zod).sort()).toEqual(Reflect.ownKeys(eager._zod).sort());
    expect([...schema._zod.traits]).toEqual([...eager._zod.traits]);
    expect(schema._zod.constr).toBe(eager._zod.constr);
    for (const io of ['input', 'output'] as const) expect(z.toJSONSchema(schema, { io })).toEqual(z.toJSONSchema(eager, { io }));
    for (const data of samples) {
      const a = schema.safeParse(data);
      const b = eager.safeParse(data);
      expect(a.success).toBe(b.success);
      expect(a.success ? a.data : a.error.issues).toEqual(b.success ? b.data : b.error.issues);
    }
  });

  it('is the schema itself: one identity for registries, WeakMaps, equality and zod internals', () => {
    const schema = lazy(() => z.string());
    const registry = z.registry<{ id: string }>();
    registry.add(schema, { id: 'S' });
    const parent = z.looseObject({ s: schema, t: z.nullable(schema) });
    expect(parent.shape.s).toBe(schema);
    expect(registry.get(parent.shape.s)).toEqual({ id: 'S' });
    expect(schema.clone()._zod.parent).toBe(schema);
    const other = lazy(() => z.number());
    expect(other.register(registry, { id: 'N' })).toBe(other);
    expect(registry.get(other)).toEqual({ id: 'N' });
    registry.add(parent, { id: 'P' });
    const json = z.toJSONSchema(registry, { uri: (id) => id }) as { schemas: Record<string, { properties?: unknown }> };
    expect(json.schemas['P']?.properties).toEqual({ s: { $ref: 'S' }, t: { anyOf: [{ $ref: 'S' }, { type: 'null' }] } });
  });

  it('keeps the parent a check set, as JSON Schema metadata reads it', () => {
    const base = z.string();
    z.globalRegistry.add(base, { description: 'inherited' });
    try {
      const schema = lazy(() => base.check(z.minLength(2)));
      expect(schema._zod.parent).toBe(base);
      expect(z.toJSONSchema(schema)).toMatchObject({ description: 'inherited', minLength: 2 });
    } finally {
      z.globalRegistry.remove(base);
    }
  });

  it('shows a stand-in before first use only to own-key and prototype queries (documented in lazy.ts)', () => {
    let calls = 0;
    const schema = lazy(() => {
      calls++;
      return z.string();
    });
    expect(Object.keys(schema)).toEqual([]);
    const standIn = Object.getPrototypeOf(schema) as object;
    expect(standIn === Object.getPrototypeOf(z.string())).toBe(false); // (expect(standIn) would read its properties)
    expect(calls).toBe(0);
    void schema.def;
    expect(Object.keys(schema)).toEqual(Object.keys(z.string()));
    expect(Object.getPrototypeOf(schema)).toBe(Object.getPrototypeOf(z.string()));
    // The stand-in, kept from before, still answers for the built schema without building again.
    expect(Reflect.get(standIn, 'type', schema)).toBe('string');
    expect(calls).toBe(1);
  });

  it('answers a walk of its prototype chain as the built schema', () => {
    const schema = lazy(() => z.string());
    expect(Object.prototype.isPrototypeOf.call(z.ZodMiniString.prototype, schema)).toBe(true);
  });
});

describe('the exported models', () => {
  const schemas = Object.entries(models).filter(([, value]) => typeof value === 'object' && value !== null && '_zod' in value);

  it('are found here (the filter above builds them; a model not found would not be checked)', () => {
    for (const name of ['Conversion', 'User', 'Quote', 'CreateQuoteBody', 'ListParams', 'Uuid', 'EventEnvelope']) {
      expect(schemas.map(([n]) => n)).toContain(name);
    }
    expect(schemas.length).toBeGreaterThan(40);
  });

  it.each(schemas)('%s is a genuine zod schema once used', (_name, schema) => {
    const s = schema as z.ZodMiniType;
    expect(s instanceof z.core.$ZodType).toBe(true);
    expect(Object.getPrototypeOf(s)).toBe(s._zod.constr.prototype);
    expect(Object.keys(s)).toEqual(expect.arrayContaining(['def', 'type']));
    expect(typeof s.safeParse(undefined).success).toBe('boolean');
  });

  it('keep the known values of open enums reachable from the schemas that nest them', () => {
    expect(models.openEnumValues(models.Conversion.shape.status)).toEqual(models.CONVERSION_STATUSES);
    expect(models.User.shape.metadata).toBe(models.AnsweredMetadata);
    expect(models.PlainListParams).toBe(models.ListParams);
  });

  it('validate as before: a Uuid, a Decimal and a strict body', () => {
    expect(models.Uuid.safeParse('123e4567-e89b-12d3-a456-426614174000').success).toBe(true);
    expect(models.Uuid.safeParse('123').success).toBe(false);
    expect(models.Decimal.safeParse('1.50').success).toBe(true);
    expect(models.Decimal.safeParse('1e3').success).toBe(false);
    expect(models.CreateTransactionBody.safeParse({ quote_id: '123e4567-e89b-12d3-a456-426614174000', x: 1 }).success).toBe(false);
  });
});
