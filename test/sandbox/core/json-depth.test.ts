/**
 * The depth of JSON text (src/sandbox/core/json-depth.ts): `nestsDeeperThan`'s shortcut (the
 * count of `{` and `[`) answers what `jsonDepth` does, on either side of the limit, with openers
 * inside strings and escaped quotes.
 */
import { describe, expect, it } from 'vitest';
import { jsonDepth, nestsDeeperThan } from '../../../src/sandbox/core/json-depth.js';

const nested = (depth: number, open = '[', close = ']'): string => open.repeat(depth) + close.repeat(depth);

describe('nestsDeeperThan', () => {
  const texts = [
    '',
    '{}',
    '{"a":1}',
    '{"external_id":"u1","name":"Ana","metadata":{"k":"v"}}',
    nested(3),
    nested(4, '{"a":', '}'),
    nested(5),
    nested(6),
    '{"a":"[[[[[[[[","b":[{}]}',
    '{"a":"\\"[[[[[[[[","b":[[[[[[[]]]]]]]}',
    '[{"a":[{"b":[]}]}]',
    '"{{{{{{{{"',
  ];
  it.each(texts)('answers as jsonDepth does for %j', (text) => {
    for (const max of [0, 1, 2, 4, 5, 6, 64]) expect(nestsDeeperThan(text, max)).toBe(jsonDepth(text) > max);
  });

  it('answers at the request limit both ways', () => {
    expect(nestsDeeperThan(nested(64), 64)).toBe(false);
    expect(nestsDeeperThan(nested(65), 64)).toBe(true);
    expect(nestsDeeperThan(`[${'{},'.repeat(100)}{}]`, 64)).toBe(false);
  });
});
