/**
 * Redaction of a cassette on write: API keys, webhook secrets and CPF numbers never reach it.
 * @module
 */
import { isCpf } from './check-digits.js';

// Up to a space, a quote or a delimiter: keys and secrets contain none of them.
const SECRET = /\b(sk_(?:test|live)_|whsec_)(?!\[redacted\])[^\s"'`<>,;()[\]{}\\]+/g;
// 11 digits, bare or as 000.000.000-00, not inside a longer run of digits.
const CPF = /(?<![\d.])(\d{3})\.?(\d{3})\.?(\d{3})-?(\d{2})(?![\d])/g;

/** Replaces API keys and webhook secrets by their prefix and `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET, '$1[redacted]');
}

const KEY = /\b(sk_(?:test|live)_)(?!\[redacted)([^\s"'`<>,;()[\]{}\\]+)/g;

/**
 * Replaces API keys by `sk_test_[redacted:N]`, one number per distinct key (so a replay can
 * tell the caller's key from the wrong ones a test sent), then webhook secrets by `whsec_[redacted]`.
 */
export function redactKeys(text: string, seen: Map<string, number>): string {
  return redactSecrets(text.replace(KEY, (_m, prefix: string, rest: string) => {
    let n = seen.get(rest);
    if (n === undefined) {
      n = seen.size + 1;
      seen.set(rest, n);
    }
    return `${prefix}[redacted:${n}]`;
  }));
}

/** An API key token in a cassette: `sk_test_[redacted:N]`. */
export const KEY_TOKEN = /\bsk_(test|live)_\[redacted:(\d+)\]/g;

/** A CPF token in a cassette: `[cpf:N]`, numbered by first appearance. */
export const CPF_TOKEN = /\[cpf:(\d+)\]/g;

/** Redacts CPFs to `[cpf:N]`, one number per distinct CPF, using and extending `seen`. */
export function redactCpfs(text: string, seen: Map<string, number>): string {
  return text.replace(CPF, (match: string, a: string, b: string, c: string, d: string) => {
    const digits = `${a}${b}${c}${d}`;
    if (!isCpf(digits)) return match;
    let n = seen.get(digits);
    if (n === undefined) {
      n = seen.size + 1;
      seen.set(digits, n);
    }
    return `[cpf:${n}]`;
  });
}

/** What `recordingFetch` redacts. */
export interface RedactOptions {
  /** Replace CPF numbers (valid check digits) by `[cpf:N]` tokens. Default true. */
  cpf?: boolean;
  /** Extra header names whose values are replaced by `[redacted]` (Authorization, Cookie and Set-Cookie always are). */
  headers?: readonly string[];
  /** A last pass of your own over every stored text (bodies and header values). */
  custom?: (text: string) => string;
}

/** A redactor with its CPF numbering (one per cassette). */
export interface Redactor {
  text(text: string): string;
  headers(headers: Headers): Record<string, string>;
}

const ALWAYS = new Set(['cookie', 'set-cookie', 'proxy-authorization']);
// Not stored: they describe the bytes on the wire, which redaction may change.
const DROPPED = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive']);

/** Makes the redactor of one cassette. */
export function createRedactor(options: RedactOptions = {}): Redactor {
  const seen = new Map<string, number>();
  const keys = new Map<string, number>();
  const extra = new Set((options.headers ?? []).map((h) => h.toLowerCase()));
  const text = (value: string): string => {
    let out = redactKeys(value, keys);
    if (options.cpf !== false) out = redactCpfs(out, seen);
    return options.custom === undefined ? out : options.custom(out);
  };
  return {
    text,
    headers(headers) {
      const out: Record<string, string> = {};
      headers.forEach((value, name) => {
        if (DROPPED.has(name)) return;
        if (ALWAYS.has(name) || extra.has(name)) out[name] = '[redacted]';
        else if (name === 'authorization') {
          // A key keeps its numbered token; anything else after the scheme is hidden whole.
          const keyed = text(value);
          out[name] = keyed !== value ? keyed : value.replace(/^(\S+\s+)?.*$/s, (_m, scheme: string | undefined) => `${scheme ?? ''}[redacted]`);
        }
        else out[name] = text(value);
      });
      return out;
    },
  };
}
