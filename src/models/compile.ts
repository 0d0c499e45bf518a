/**
 * Request schemas as generated code: zod's `compile()` (zod 4.5+, exported by `zod/mini`) turns a
 * schema into one function that checks and copies a value without walking the schema's tree, and
 * falls back to the schema's own parse on any input it refuses, so that every issue and message
 * is the interpreted parse's. zod/mini's objects are interpreted (classic zod's generate code on
 * their own); compiled, a request body's check costs a tenth to a hundredth of it
 * (docs/performance.md, "The lifecycle, layer by layer").
 *
 * Generated code needs `new Function`. Where the runtime refuses it (a strict
 * Content-Security-Policy, a Worker), the schemas stay interpreted: detected once, by zod's own
 * probe, never configured (and `z.config({ jitless: true })` turns it off as it does for zod).
 * The sandbox validates with it; the client does not (its answer models load in a browser, where
 * the compiler's code would cost more bytes than it saves time). Not exported by the package.
 * @module
 */
import * as z from 'zod/mini';

const COMPILED = new WeakMap<object, z.ZodMiniType>();

/** Whether this runtime runs generated code (zod's probe: one `new Function`, answered once). */
export function codegenAllowed(): boolean {
  return z.util.allowsEval.value;
}

/**
 * The compiled form of `schema`, made on first use and kept (one per schema object, shared by
 * every sandbox); `schema` itself where generated code cannot run. It parses exactly as `schema`
 * does, issues included.
 */
export function compiled<T>(schema: z.ZodMiniType<T>): z.ZodMiniType<T> {
  let out = COMPILED.get(schema) as z.ZodMiniType<T> | undefined;
  if (out === undefined) {
    out = codegenAllowed() ? z.compile(schema) : schema;
    COMPILED.set(schema, out);
  }
  return out;
}
