/**
 * The leak detector of the hygiene tests: every rendering of a value a partner could log
 * (message, stack, `String`, `JSON.stringify`, `util.inspect` at full depth, with hidden
 * properties) is searched for each secret, whole and by its random tail (a key with its
 * prefix cut off, or a secret in another encoding of the same characters, still leaks).
 */
import { inspect } from 'node:util';

/** The forms under which a secret counts as leaked. */
function needles(secret: string): string[] {
  const tail = secret.replace(/^(sk_(test|live)_|whsec_)/, '');
  return [...new Set([secret, tail, encodeURIComponent(secret)])].filter((n) => n.length >= 12);
}

/** Every text a value can turn into when logged. */
export function renderings(value: unknown): string[] {
  const out = [inspect(value, { depth: Infinity, showHidden: true, getters: true }), String(value)];
  try {
    out.push(JSON.stringify(value) ?? '');
  } catch (error) {
    out.push(`JSON.stringify threw ${String(error)}`);
  }
  if (value instanceof Error) out.push(value.message, value.stack ?? '');
  return out;
}

/** The leaks of `secrets` in `value`: one line per (what, secret) found, empty when clean. */
export function leaks(what: string, value: unknown, secrets: readonly string[]): string[] {
  const texts = typeof value === 'string' ? [value] : renderings(value);
  const found: string[] = [];
  for (const secret of secrets) {
    for (const needle of needles(secret)) {
      if (texts.some((t) => t.includes(needle))) {
        found.push(`${what} contains ${secret.slice(0, 8)}...`);
        break;
      }
    }
  }
  return found;
}
