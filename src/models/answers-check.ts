/**
 * How the client checks an answer: against a shape (./answers-shapes.ts, generated from the zod
 * answer models of ./answers.ts), by a small interpreter that needs no zod. A browser app so
 * ships no zod at all (issue 34: the answer models with zod/mini were an 8.6 kB chunk that every
 * app loaded with its first answer; the shapes and this check are about 2 kB), and a check
 * costs a fraction of a zod parse (bench/client.ts).
 *
 * It accepts exactly what the zod models accept, on every JSON value (test/client/answer-shapes.test.ts
 * compares the two on every model): loose objects (unknown fields kept), open enums (any string,
 * but only the known values in strict mode), nullable and optional fields. It never changes the
 * value: the answer is returned as parsed.
 *
 * A shape is data:
 * - `'s'`, `'n'`, `'b'`, `'o'`: a string, a number, a boolean, an object (any fields; not an
 *   array); upper case (`'S'`, ...) also accepts `null`;
 * - `{ field: shape, ... }`: an object with these fields (others allowed);
 * - `[ARRAY, shape]`, `[NULLABLE, shape]`, `[OPTIONAL, shape]`: an array of, `null` or, absent or;
 * - `[OPEN, values]`: a string, one of `values` in strict mode; `[ONE_OF, values]`: one of `values`.
 * @module
 */
import { describeReceived, type Issue } from './issues.js';

/** The tags of compound shapes. */
export const ARRAY = 0;
export const NULLABLE = 1;
export const OPTIONAL = 2;
export const OPEN = 3;
export const ONE_OF = 4;

/** The shape of an answer (see the module's comment). */
export type Shape =
  | 's' | 'n' | 'b' | 'o' | 'S' | 'N' | 'B' | 'O'
  | readonly [typeof ARRAY | typeof NULLABLE | typeof OPTIONAL, Shape]
  | readonly [typeof OPEN | typeof ONE_OF, readonly (string | number | boolean)[]]
  | { readonly [field: string]: Shape };

/** The shape of an answer of type `T` (the type is carried for the transport's return type only). */
export type AnswerShape<T> = Shape & { readonly __answer?: T };

const TYPES: Readonly<Record<string, string>> = { s: 'string', n: 'number', b: 'boolean', o: 'object', S: 'string', N: 'number', B: 'boolean', O: 'object' };

/**
 * Checks `value` against `shape`: `undefined` when it matches, else every issue (a dotted path
 * and what was expected and received). `strict` also refuses the values of open enums that this
 * SDK does not know.
 */
export function checkAnswer(shape: Shape, value: unknown, strict: boolean): Issue[] | undefined {
  // An answer that matches (nearly all of them) is checked without paths or issues.
  if (matches(shape, value, strict)) return undefined;
  const issues: Issue[] = [];
  walk(shape, value, strict, '', issues);
  return issues.length === 0 ? undefined : issues;
}

/** Whether {@link walk} would find no issue, without building a path or an issue. */
function matches(shape: Shape, value: unknown, strict: boolean): boolean {
  return test(shape)(value, strict);
}

type Test = (value: unknown, strict: boolean) => boolean;

// A shape's check as closures, made once per shape (a shape is a module constant): no `for...in`
// over the shape's fields and no switch on a letter per value (issue 34). No `new Function`: a
// strict CSP refuses it.
const TESTS = new WeakMap<object, Test>();

const LETTERS: Readonly<Record<string, Test>> = {
  s: (value) => typeof value === 'string',
  n: (value) => typeof value === 'number',
  b: (value) => typeof value === 'boolean',
  o: (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  S: (value) => value === null || typeof value === 'string',
  N: (value) => value === null || typeof value === 'number',
  B: (value) => value === null || typeof value === 'boolean',
  O: (value) => value === null || (typeof value === 'object' && !Array.isArray(value)),
};

function test(shape: Shape): Test {
  if (typeof shape === 'string') return LETTERS[shape] as Test;
  let made = TESTS.get(shape);
  if (made === undefined) {
    made = compile(shape);
    TESTS.set(shape, made);
  }
  return made;
}

function compile(shape: Exclude<Shape, string>): Test {
  if (Array.isArray(shape)) {
    const [tag, inner] = shape as readonly [number, Shape & readonly unknown[]];
    if (tag === ARRAY) {
      const item = test(inner);
      return (value, strict) => {
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i++) if (!item(value[i], strict)) return false;
        return true;
      };
    }
    if (tag === NULLABLE) {
      const inside = test(inner);
      return (value, strict) => value === null || inside(value, strict);
    }
    if (tag === OPTIONAL) {
      const inside = test(inner);
      return (value, strict) => value === undefined || inside(value, strict);
    }
    if (tag === OPEN) return (value, strict) => typeof value === 'string' && (!strict || inner.includes(value));
    return (value) => inner.includes(value as string);
  }
  const fields = shape as { readonly [field: string]: Shape };
  const keys = Object.keys(fields);
  const tests = keys.map((key) => test(fields[key] as Shape));
  return (value, strict) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const object = value as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++) if (!(tests[i] as Test)(object[keys[i] as string], strict)) return false;
    return true;
  };
}

/** Whether `value` is what a one-letter shape asks for (upper case: or `null`). */
function is(code: string, value: unknown): boolean {
  switch (code) {
    case 's':
      return typeof value === 'string';
    case 'n':
      return typeof value === 'number';
    case 'b':
      return typeof value === 'boolean';
    case 'o':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'S':
      return value === null || typeof value === 'string';
    case 'N':
      return value === null || typeof value === 'number';
    case 'B':
      return value === null || typeof value === 'boolean';
    default:
      return value === null || (typeof value === 'object' && !Array.isArray(value));
  }
}

function walk(shape: Shape, value: unknown, strict: boolean, path: string, issues: Issue[]): void {
  if (typeof shape === 'string') {
    if (!is(shape, value)) issues.push(issue(path, `${article(TYPES[shape] as string)}${shape < 'a' ? ' or null' : ''}`, value));
  } else if (Array.isArray(shape)) {
    const [tag, inner] = shape as readonly [number, Shape & readonly unknown[]];
    if (tag === ARRAY) {
      if (!Array.isArray(value)) issues.push(issue(path, 'an array', value));
      else for (let i = 0; i < value.length; i++) walk(inner, value[i], strict, join(path, i), issues);
    } else if (tag === NULLABLE || tag === OPTIONAL) {
      if (value !== (tag === NULLABLE ? null : undefined)) walk(inner, value, strict, path, issues);
    } else if (tag === OPEN ? typeof value !== 'string' || (strict && !inner.includes(value)) : !inner.includes(value as string)) {
      issues.push(issue(path, tag === OPEN && !strict ? 'a string' : `one of ${inner.map((v) => JSON.stringify(v)).join(', ')}`, value));
    }
  } else if (!is('o', value)) {
    issues.push(issue(path, 'an object', value));
  } else {
    const object = value as Record<string, unknown>;
    const fields = shape as { readonly [field: string]: Shape };
    for (const key in fields) {
      const field = fields[key] as Shape;
      // A plain field that matches costs no path.
      if (typeof field !== 'string' || !is(field, object[key])) walk(field, object[key], strict, join(path, key), issues);
    }
  }
}

const join = (path: string, key: string | number): string => (path === '' ? String(key) : `${path}.${key}`);

const article = (type: string): string => (type === 'array' || type === 'object' ? 'an ' : 'a ') + type;

function issue(path: string, expected: string, value: unknown): Issue {
  return { path, message: `Expected ${expected}, received ${describeReceived(value)}` };
}
