/**
 * What a failed parse says: the one place where zod issues become the reference's
 * `details.issues` (`{ path, message }`) and an error's one-line summary. The client (answers,
 * page limits, the message of a `ValidationError`) and the sandbox (request bodies and queries)
 * both read it, so an issue reads the same wherever it is raised.
 *
 * Answers checked by the client (`validation: 'warn' | 'strict'`) keep zod's own messages: the
 * error map costs 0.6 kB gzipped in a browser app, whose budget is 15 kB (docs/decisions.md).
 *
 * Every message says what was expected and what was received. zod/mini loads no locale (its
 * messages are all `Invalid input`), so {@link issueMessage} is passed to each parse as its
 * error map, never installed with `z.config` (that would change the messages of every other
 * zod schema of the partner's program). A schema's own message (`Expected a UUID`) wins over the
 * map, as zod orders them; {@link parseRequest} then adds what was received when the message lacks it.
 * @module
 */
import type * as z from 'zod/mini';

/** One problem found in a value: a dotted `path` (empty for the root) and a `message`. */
export interface Issue {
  /** Dotted path of the field (`source_amount`, `metadata.order`); empty for the whole value. */
  path: string;
  /** What was expected and what was received: `Expected a string, received the number 100`. */
  message: string;
}

/** The options of a parse that words its issues ({@link parseRequest}): `schema.safeParse(value, PARSE_OPTIONS)`. */
export const PARSE_OPTIONS = {
  /** The error map: {@link issueMessage}. */
  error: (issue: z.core.$ZodRawIssue): string | undefined => issueMessage(issue),
  /** The final issue keeps its input, so that `parseRequest` can say what was received after a schema's own message. */
  reportInput: true,
} as const;

// Strings are not echoed (a CPF, a Pix key or a secret may be in the wrong field), except short
// identifier-like tokens (an enum value such as "eth"); everything else by type, numbers by value.
const TOKEN = /^(?!sk_|whsec_)[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

/** Says what a value is, without echoing a string that could be personal data: `nothing`, `the number 100`, `"eth"`, `a string of 11 characters`. */
export function describeReceived(value: unknown): string {
  if (value === undefined) return 'nothing (the field is missing)';
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'bigint') return `the number ${String(value)}`;
  if (typeof value === 'boolean') return `the boolean ${String(value)}`;
  if (typeof value === 'string') {
    if (value === '') return 'an empty string';
    return TOKEN.test(value) ? JSON.stringify(value) : `a string of ${value.length} character${value.length === 1 ? '' : 's'}`;
  }
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

const ARTICLE: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  null: 'null',
  undefined: 'nothing',
  date: 'a date',
  bigint: 'a bigint',
};

function listValues(values: readonly unknown[]): string {
  const shown = values.map((v) => JSON.stringify(v));
  return shown.length === 1 ? (shown[0] as string) : `one of ${shown.join(', ')}`;
}

function bound(issue: { origin?: unknown; inclusive?: boolean | undefined; exact?: boolean | undefined }, limit: number | bigint, side: 'max' | 'min'): string {
  const n = String(limit);
  const atMost = side === 'max' ? 'at most' : 'at least';
  const unit = (word: string): string => `${n} ${word}${n === '1' ? '' : 's'}`;
  if (issue.origin === 'string') return issue.exact ? `exactly ${unit('character')}` : `${atMost} ${unit('character')}`;
  if (issue.origin === 'array' || issue.origin === 'set') return issue.exact ? `exactly ${unit('item')}` : `${atMost} ${unit('item')}`;
  const word = issue.origin === 'int' ? 'an integer' : 'a number';
  if (issue.exact) return `${word} equal to ${n}`;
  const op = side === 'max' ? (issue.inclusive === false ? '<' : '<=') : issue.inclusive === false ? '>' : '>=';
  return `${word} ${op} ${n}`;
}

/**
 * The message of one zod issue: `Expected <what>, received <what>`. Used as the error map of
 * every parse (through {@link PARSE_OPTIONS}); a schema's own message takes precedence.
 */
export function issueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  const received = `received ${describeReceived(issue.input)}`;
  switch (issue.code) {
    case 'invalid_type':
      return `Expected ${ARTICLE[issue.expected] ?? issue.expected}, ${received}`;
    case 'invalid_value':
      return `Expected ${listValues(issue.values)}, ${received}`;
    case 'too_big':
      return `Expected ${bound(issue, issue.maximum, 'max')}, ${received}`;
    case 'too_small':
      return `Expected ${bound(issue, issue.minimum, 'min')}, ${received}`;
    case 'invalid_format':
      return `Expected a string in the ${issue.format} format, ${received}`;
    case 'not_multiple_of':
      return `Expected a multiple of ${issue.divisor}, ${received}`;
    case 'unrecognized_keys':
      return `Unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}: remove ${issue.keys.length === 1 ? 'it' : 'them'}`;
    case 'invalid_union':
      if (Array.isArray(issue['options']) && typeof issue['discriminator'] === 'string') {
        // The issue's input is the object; what was received is its discriminator.
        const value = typeof issue.input === 'object' && issue.input !== null ? (issue.input as Record<string, unknown>)[issue['discriminator']] : undefined;
        return `Expected ${listValues(issue['options'])}, received ${describeReceived(value)}`;
      }
      return `Expected one of the accepted shapes, ${received}`;
    case 'invalid_key':
      return `Expected a valid key, ${received}`;
    case 'invalid_element':
      return `Expected a valid element, ${received}`;
    default:
      return undefined;
  }
}

/** Converts zod issues to the reference's `details.issues` form: a dotted path and the message. */
export function toIssues(issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>): Issue[] {
  return issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
}

// Codes where what was received says something; a custom refinement writes its own message.
const ADD_RECEIVED = new Set(['invalid_type', 'invalid_value', 'invalid_format', 'too_big', 'too_small', 'not_multiple_of', 'invalid_union']);

/** The outcome of {@link parseRequest}. */
export type RequestParse<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/**
 * Parses a request (a body, a query) as the API does: every issue worded by
 * {@link issueMessage}, and a schema's own message (`Expected a UUID`) completed with what was
 * received. The sandbox validates every request with it.
 */
export function parseRequest<T>(schema: z.ZodMiniType<T>, value: unknown): RequestParse<T> {
  const result = schema.safeParse(value, PARSE_OPTIONS);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => {
      let message = issue.message;
      if ('input' in issue && ADD_RECEIVED.has(issue.code) && !/\breceived\b/.test(message)) {
        message = `${message.replace(/\.$/, '')}, received ${describeReceived(issue.input)}`;
      }
      return { path: issue.path.map(String).join('.'), message };
    }),
  };
}

/**
 * One line for an error's `message`: the first `max` issues as `path: message`, joined by `; `,
 * and how many more there are. `(root)` names the whole value.
 */
export function summarizeIssues(issues: readonly Issue[], max = 3): string {
  const shown = issues.slice(0, max).map((i) => `${i.path === '' ? '(root)' : i.path}: ${i.message}`);
  const more = issues.length - shown.length;
  return shown.join('; ') + (more > 0 ? ` (and ${more} more)` : '');
}
