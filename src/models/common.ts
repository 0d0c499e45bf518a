/**
 * Building blocks shared by every model: open enums, decimals, timestamps, and the
 * list and error envelopes of the reference.
 *
 * The models use `zod/mini` (about 5 kB gzipped in a browser bundle, against about 26 kB
 * for `import * as z from 'zod'`); see docs/decisions.md.
 *
 * Every schema is a `/* @__PURE__ *\/ lazy(() => ...)` (./lazy.ts): built on first use, so that
 * importing the package does not build the schemas a program never touches (issue 6, cold
 * start), and dropped by bundlers when unused, since the call is pure and its argument is a
 * function (the request bodies, in a browser app that only calls the API).
 * @module
 */
import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { strictEnums } from './parse.js';

export { parseModel, type ParseOutcome } from './parse.js';

/** How the client checks what the API returns. */
export type ValidationMode = 'strict' | 'warn' | 'off';

// Kept beside the schemas (a refinement hides them) for tools that describe the API.
const OPEN_ENUM_VALUES = new WeakMap<object, readonly string[]>();

/**
 * An enum that stays open on responses: a value the SDK does not know yet still parses
 * (unless the strict mode is on), while the type stays the known union for autocompletion
 * and exhaustive `switch`es. Request schemas use closed `z.enum` instead.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(
  values: T,
): z.ZodMiniType<T[number]> {
  const schema = z.string().check(
    z.refine((v) => !strictEnums() || values.includes(v), {
      message: `Expected one of: ${values.join(', ')}`,
    }),
  );
  OPEN_ENUM_VALUES.set(schema, values);
  return schema as unknown as z.ZodMiniType<T[number]>;
}

/**
 * The values an {@link openEnum} schema knows (`undefined` for any other schema). For tools
 * that describe the API, such as the OpenAPI generator (docs/openapi.json).
 */
export function openEnumValues(schema: object): readonly string[] | undefined {
  return OPEN_ENUM_VALUES.get(schema);
}

/** The check of {@link distinctList}: every item differs (compared as JSON text). */
function distinctItems(items: readonly unknown[]): boolean {
  return new Set(items.map((item) => JSON.stringify(item))).size === items.length;
}

/**
 * A request's list of one or more distinct items: `[]` and a repeated item are refused, with
 * `what` naming the items in the messages.
 */
export function distinctList<T extends z.core.SomeType>(item: T, what: string): z.ZodMiniArray<T> {
  return z.array(item).check(z.minLength(1, `Name at least one ${what}`), z.refine(distinctItems, `Name each ${what} once`));
}

/**
 * Whether `schema` is a {@link distinctList}: for tools that describe the API, the JSON Schema
 * `uniqueItems` that its refinement has no form for (`minItems` comes from zod itself).
 */
export function isDistinctList(schema: object): boolean {
  const checks = (schema as { _zod?: { def?: { checks?: Array<{ _zod: { def: { fn?: unknown } } }> } } })._zod?.def?.checks ?? [];
  return checks.some((check) => check._zod.def.fn === distinctItems);
}

/** The pattern of {@link Uuid} (the server checks a path's id by it alone). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An identifier: a UUID in canonical text form. */
export const Uuid = /* @__PURE__ */ lazy(() =>
  z.string().check(
    z.regex(UUID_PATTERN, 'Expected a UUID'),
  ));

// Also the message of a wrong type: an amount sent as a number is the classic mistake.
const DECIMAL_MESSAGE = 'Expected a non-negative decimal string such as "100.00"';

/** A non-negative decimal amount as a string (`"100"`, `"100.25"`); never a float. */
export const Decimal = /* @__PURE__ */ lazy(() =>
  z.string(DECIMAL_MESSAGE).check(z.regex(/^(0|[1-9]\d{0,17})(\.\d{1,18})?$/, DECIMAL_MESSAGE)));

/** An ISO 8601 date-time in UTC, as the API writes it. */
export const Timestamp = /* @__PURE__ */ lazy(() =>
  z.string());

/** A timestamp that may be absent: nullable on every resource, since the reference promises none. */
export const OptionalTimestamp = /* @__PURE__ */ lazy(() =>
  z.nullable(z.string()));

/** A string the reference cannot promise: nullable. */
export const NullableString = /* @__PURE__ */ lazy(() =>
  z.nullable(z.string()));

/** Free-form partner data sent on a request: string keys, string values. */
export const Metadata = /* @__PURE__ */ lazy(() =>
  z.record(z.string(), z.string()));

/**
 * Metadata as the API answers it. Checked as an object only: `z.record` alone costs 0.6 kB
 * gzipped in the browser bundle of the client, and the values were checked on the way in.
 */
export const AnsweredMetadata = /* @__PURE__ */ lazy(() =>
  z.looseObject({}) as unknown as z.ZodMiniType<Record<string, string>>);

/** One problem found in a request: a dotted JSON path and a message. */
export const ErrorIssue = /* @__PURE__ */ lazy(() =>
  z.looseObject({ path: z.string(), message: z.string() }));
/** One problem found in a request. */
export type ErrorIssue = z.infer<typeof ErrorIssue>;

/** The error envelope every error response carries. */
export const ErrorEnvelope = /* @__PURE__ */ lazy(() =>
  z.looseObject({
    code: z.string(),
    message: z.string(),
    request_id: z.string(),
    details: z.optional(
      z.looseObject({
        issues: z.optional(z.array(ErrorIssue)),
        retry_after_seconds: z.optional(z.number()),
        upstream: z.optional(z.string()),
      }),
    ),
  }));
/** The error envelope every error response carries. */
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** A page of a listing: `data` and the cursor of the next page (`null` on the last page). */
export interface ListEnvelope<T> {
  /** The items of this page. */
  data: T[];
  /** Cursor of the next page; `null` on the last page. */
  next_cursor: string | null;
}

/** The schema of a page of `item`. */
export function listOf<T>(item: z.ZodMiniType<T>): z.ZodMiniType<ListEnvelope<T>> {
  // Lazy too: the resources call this when their module loads.
  return lazy(() => z.looseObject({ data: z.array(item), next_cursor: z.nullable(z.string()) })) as unknown as z.ZodMiniType<
    ListEnvelope<T>
  >;
}

/** Page size: 1 to 100 (default 50 on the server). */
export const Limit = /* @__PURE__ */ lazy(() =>
  z.int().check(z.gte(1), z.lte(100)));

/** The query every listing takes. */
export const ListParams = /* @__PURE__ */ lazy(() =>
  z.object({
    limit: z.optional(Limit),
    cursor: z.optional(z.string()),
  }));
/** The query every listing takes. */
export type ListParams = z.infer<typeof ListParams>;
