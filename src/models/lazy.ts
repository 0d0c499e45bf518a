/**
 * Schemas built on first use, so that importing the package does not build the 55 schemas it
 * exports (issue 6, cold start; docs/decisions.md, "Packaging"). Not exported by the package.
 * @module
 */
import type * as z from 'zod/mini';

/**
 * The schema `build` returns, built the first time anything reads, writes or tests (`in`) one
 * of its properties: parsing, `instanceof`, nesting it in another schema, `z.toJSONSchema`,
 * `util.inspect`.
 *
 * What this returns is the schema itself, not a wrapper: its prototype is a proxy until the
 * first access, which turns it into a genuine zod instance in place (zod's own constructor
 * runs on it with the definition of the schema `build` made, as `clone` does). So identity
 * holds for everything keyed by the object (registries, `WeakMap`s, `===`), and zod's
 * internals refer to it. Only what looks at the object's own keys or its prototype without
 * reading a property sees the stand-in before that first access: `Object.keys` is empty and
 * `Object.getPrototypeOf` is the proxy. `build` must not register its result anywhere (that
 * instance is thrown away) nor refer to the schema it builds.
 */
export function lazy<T extends z.core.$ZodType>(build: () => T): T {
  // The operations that reach a prototype from the object: reading, writing, `in`, and walking
  // the chain (`instanceof` on a class without Symbol.hasInstance, `isPrototypeOf`).
  const schema = Object.create(
    new Proxy(
      {},
      {
        get: (_, key, receiver) => Reflect.get(make(), key, receiver),
        set: (_, key, value, receiver) => Reflect.set(make(), key, value, receiver),
        has: (_, key) => key in make(),
        getPrototypeOf: () => Reflect.getPrototypeOf(make()),
      },
    ),
  ) as T;
  // Cleared once built: the proxy stays reachable to whoever kept `Object.getPrototypeOf(schema)`.
  let pending: (() => T) | undefined = build;
  function make(): T {
    if (pending === undefined) return schema;
    const built = pending();
    Object.setPrototypeOf(schema, Object.getPrototypeOf(built));
    Reflect.apply(built._zod.constr, schema, [built._zod.def]);
    // What was set after construction (`parent`, by `.check()`; JSON Schema output reads it).
    const from = built._zod as unknown as Record<string, unknown>;
    const to = schema._zod as unknown as Record<string, unknown>;
    for (const key of Object.keys(from)) if (!(key in to)) to[key] = from[key];
    pending = undefined;
    return schema;
  }
  return schema;
}
