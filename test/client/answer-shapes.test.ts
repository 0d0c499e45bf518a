/**
 * The client checks answers against shapes (src/models/answers-shapes.ts, generated from the zod
 * answer models by scripts/answer-shapes.ts) with a small interpreter (src/models/answers-check.ts),
 * not with zod. Here: the file is what the models generate, and on every model the shape accepts
 * exactly what the zod model accepts, in both modes, with issues at the same paths: on a valid
 * answer, on every field made wrong in every way JSON allows, and on random JSON.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { SHAPES_COMMAND, SHAPES_PATH, renderShapes } from '../../scripts/answer-shapes.js';
import { ANSWER_MODELS } from '../../src/models/answers.js';
import { ARRAY, NULLABLE, ONE_OF, OPEN, OPTIONAL, checkAnswer, type Shape } from '../../src/models/answers-check.js';
import * as SHAPES from '../../src/models/answers-shapes.js';
import { parseModel } from '../../src/models/parse.js';

const root = new URL('../../', import.meta.url);
const models = Object.entries(ANSWER_MODELS) as Array<[string, z.ZodMiniType<unknown>]>;
const shapes = SHAPES as unknown as Record<string, Shape>;

describe('the generated shapes', () => {
  it(`${SHAPES_PATH} is what the answer models generate`, () => {
    const committed = readFileSync(new URL(SHAPES_PATH, root), 'utf8');
    expect(committed === renderShapes(), `${SHAPES_PATH} is stale: run \`${SHAPES_COMMAND}\` and commit the result`).toBe(true);
  });

  it('there is one shape per answer model, and nothing else', () => {
    expect(Object.keys(SHAPES).sort()).toEqual(Object.keys(ANSWER_MODELS).sort());
  });
});

// A value that matches `shape`: every field present (optional ones too), one item per array (an
// item's fields are the item model's own test; a second item only doubled the time), the first
// known value of an enum.
function sample(shape: Shape): unknown {
  if (typeof shape === 'string') return ({ s: 'text', n: 7, b: true, o: { any: 'thing' } } as Record<string, unknown>)[shape.toLowerCase()];
  if (Array.isArray(shape)) {
    const [tag, inner] = shape as readonly [number, Shape & readonly unknown[]];
    if (tag === ARRAY) return [sample(inner)];
    if (tag === NULLABLE || tag === OPTIONAL) return sample(inner);
    return inner[0];
  }
  return Object.fromEntries(Object.entries(shape as Record<string, Shape>).map(([key, field]) => [key, sample(field)]));
}

type Path = Array<string | number>;

// Every path of a value (objects' fields, arrays' items), the root included.
function paths(value: unknown, at: Path = []): Path[] {
  const children = Array.isArray(value)
    ? value.flatMap((item, i) => paths(item, [...at, i]))
    : typeof value === 'object' && value !== null
      ? Object.entries(value).flatMap(([key, field]) => paths(field, [...at, key]))
      : [];
  return [at, ...children];
}

const REMOVED = Symbol('removed');

// `value` with the thing at `path` replaced (or removed).
function replaced(value: unknown, path: Path, by: unknown): unknown {
  if (path.length === 0) return by === REMOVED ? undefined : by;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>;
  const [head, ...rest] = path as [string | number, ...Path];
  const next = replaced(copy[head], rest, by);
  if (next === undefined && rest.length === 0 && by === REMOVED) delete copy[head];
  else copy[head] = next;
  return copy;
}

// What JSON can put anywhere, and an enum value no model knows.
const WRONG: unknown[] = [REMOVED, null, 42, 0, 'video_review', '', true, false, [], [1], {}, { id: 'x' }];

// The verdict of each side: the sorted issue paths, or 'ok'.
function zodVerdict(schema: z.ZodMiniType<unknown>, value: unknown, strict: boolean): string[] | 'ok' {
  const outcome = parseModel(schema, value, strict);
  return outcome.ok ? 'ok' : [...new Set(outcome.issues.map((i) => i.path))].sort();
}
function shapeVerdict(shape: Shape, value: unknown, strict: boolean): string[] | 'ok' {
  const issues = checkAnswer(shape, value, strict);
  return issues === undefined ? 'ok' : [...new Set(issues.map((i) => i.path))].sort();
}

describe.each(models)('the shape of %s', (name, schema) => {
  const shape = shapes[name] as Shape;

  it('accepts what the model accepts, a valid answer, in both modes', () => {
    const valid = sample(shape);
    for (const strict of [false, true]) {
      expect(zodVerdict(schema, valid, strict)).toBe('ok');
      expect(shapeVerdict(shape, valid, strict)).toBe('ok');
    }
  });

  it('refuses what the model refuses, at the same paths: every field made wrong in every way', () => {
    const valid = sample(shape);
    let refused = 0;
    // Disagreements are collected and compared once: an expect per case was most of the time.
    const disagreements: string[] = [];
    for (const path of paths(valid)) {
      for (const wrong of WRONG) {
        const value = replaced(valid, path, wrong);
        for (const strict of [false, true]) {
          const expected = zodVerdict(schema, value, strict);
          if (expected !== 'ok') refused++;
          const got = shapeVerdict(shape, value, strict);
          if (JSON.stringify(got) !== JSON.stringify(expected)) {
            disagreements.push(`${path.join('.') || '(root)'} = ${String(wrong === REMOVED ? 'removed' : JSON.stringify(wrong))}, strict: ${strict}: ${JSON.stringify(got)}, zod ${JSON.stringify(expected)}`);
          }
        }
      }
    }
    expect(disagreements).toEqual([]);
    expect(refused).toBeGreaterThan(0);
  });

  it('agrees with the model on random JSON in the answer', () => {
    const valid = sample(shape) as Record<string, unknown>;
    const fields = fc.dictionary(fc.constantFrom(...Object.keys(valid), 'extra'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    fc.assert(
      fc.property(fields, fc.boolean(), (changes, strict) => {
        const value = { ...valid, ...changes };
        expect(shapeVerdict(shape, value, strict)).toEqual(zodVerdict(schema, value, strict));
      }),
      { numRuns: 25 }, // the exhaustive test above is the proof; this one looks for what it did not think of
    );
  });
});

describe('what an issue says', () => {
  it('names the field, what was expected and what was received, without echoing free text', () => {
    const user = sample(SHAPES.User as Shape) as Record<string, unknown>;
    expect(checkAnswer(SHAPES.User, { ...user, kyc_status: 42, email: 7, name: undefined }, false)).toEqual([
      { path: 'name', message: 'Expected a string, received nothing (the field is missing)' },
      { path: 'email', message: 'Expected a string or null, received the number 7' },
      { path: 'kyc_status', message: 'Expected a string, received the number 42' },
    ]);
    expect(checkAnswer(SHAPES.User, { ...user, name: 'Maria da Silva Santos' }, false)).toBeUndefined();
    expect(checkAnswer(SHAPES.User, { ...user, name: 12_345_678_901 }, false)?.[0]?.message).toBe('Expected a string, received the number 12345678901');
    expect(checkAnswer(SHAPES.User, { ...user, id: ['52998224725'] }, false)?.[0]?.message).toBe('Expected a string, received an array of 1 item');
    expect(checkAnswer(SHAPES.User, { ...user, kyc_status: 'video_review' }, true)).toEqual([
      { path: 'kyc_status', message: 'Expected one of "not_started", "pending", "approved", "rejected", "expired", "blocked", received "video_review"' },
    ]);
    expect(checkAnswer(SHAPES.UserList, { data: [user, { ...user, id: 7 }], next_cursor: null }, false)).toEqual([{ path: 'data.1.id', message: 'Expected a string, received the number 7' }]);
    expect(checkAnswer(SHAPES.User, [user], false)).toEqual([{ path: '', message: 'Expected an object, received an array of 1 item' }]);
  });

  it('a closed value list (a literal) is one of its values in both modes; an open one only in strict mode', () => {
    const tag = [ONE_OF, ['pix-usdt-tenant']] as const;
    const open = [OPEN, ['a']] as const;
    expect(checkAnswer(tag, 'other', false)).toEqual([{ path: '', message: 'Expected one of "pix-usdt-tenant", received "other"' }]);
    expect(checkAnswer(open, 'other', false)).toBeUndefined();
    expect(checkAnswer(open, 3, false)).toEqual([{ path: '', message: 'Expected a string, received the number 3' }]);
  });
});
