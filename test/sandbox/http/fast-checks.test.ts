/**
 * Checks the sandbox runs on every request as loops rather than regular expressions
 * (sandbox/http/stages.ts `isUuid`, sandbox/http/authentication.ts `readApiKey`): each answers
 * exactly what its pattern answers, for near misses and for arbitrary strings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { API_KEY_FORMAT } from '../../../src/models/api-key.js';
import { UUID_PATTERN } from '../../../src/models/common.js';
import { API_KEY_REFUSALS, readApiKey } from '../../../src/sandbox/http/authentication.js';
import { isUuid } from '../../../src/sandbox/http/stages.js';

const UUID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const KEY = 'sk_test_AbCdEfGhIjKlMnOpQrStUvWxYz012345';

// Every one-character change of a valid value, with characters around each class's edges.
function nearMisses(valid: string): string[] {
  const out: string[] = [];
  const edges = ['/', '0', '9', ':', '@', 'A', 'F', 'G', 'Z', '[', '`', 'a', 'f', 'g', 'z', '{', '-', '_', ' ', '\u00e9', '\u0660'];
  for (let i = 0; i < valid.length; i++) for (const c of edges) out.push(valid.slice(0, i) + c + valid.slice(i + 1));
  out.push(valid.slice(1), `${valid}0`, valid.toUpperCase(), '', valid.slice(0, -1));
  return out;
}

describe('isUuid', () => {
  it('answers what UUID_PATTERN answers, near misses included', () => {
    for (const s of [UUID, ...nearMisses(UUID)]) expect(isUuid(s), s).toBe(s.length === 36 && UUID_PATTERN.test(s));
    expect(isUuid(undefined)).toBe(false);
  });
  it('answers what UUID_PATTERN answers for arbitrary strings', () => {
    const hexish = fc.stringMatching(/^[0-9a-fA-Fg-]{30,40}$/);
    fc.assert(fc.property(fc.oneof(fc.uuid(), fc.string(), hexish), (s) => isUuid(s) === (s.length === 36 && UUID_PATTERN.test(s))));
  });
});

describe('readApiKey', () => {
  const malformed = (s: string): boolean => readApiKey(`Bearer ${s}`) === API_KEY_REFUSALS.malformed;
  it('refuses as malformed exactly what API_KEY_FORMAT refuses, near misses included', () => {
    for (const s of [KEY, KEY.replace('test', 'live'), ...nearMisses(KEY)]) expect(malformed(s), s).toBe(!API_KEY_FORMAT.test(s));
  });
  it('refuses as malformed exactly what API_KEY_FORMAT refuses, for arbitrary strings', () => {
    const keyish = fc.stringMatching(/^sk_(test|live|tes)_[A-Za-z0-9_-]{30,34}$/);
    fc.assert(fc.property(fc.oneof(fc.string(), keyish), (s) => malformed(s) === !API_KEY_FORMAT.test(s)));
  });
});
