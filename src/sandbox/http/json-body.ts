/**
 * The one reader of JSON request bodies, for `/v1` and every other path the sandbox answers (the
 * inspector's actions): not JSON is `400 invalid_json`; JSON nested deeper than
 * {@link MAX_JSON_DEPTH} is `400 validation_error` before anything walks it (a body nested
 * 100,000 levels deep parses, but a recursive walk of it, `JSON.stringify` included, overflows
 * the stack: a 500 "Maximum call stack size exceeded").
 * @module
 */
import { ApiError } from '../core/errors.js';

/** The deepest nesting of arrays and objects a request body may have (ours need 4). */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The deepest nesting of `[` and `{` in JSON text, outside strings (one pass, no recursion). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) max = depth;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return max;
}

/** Parses a request body: `invalid_json` when it is not JSON, `validation_error` when it nests too deep. */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    // V8 parses iteratively: depth does not overflow here, only in what walks the value later.
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw new ApiError('validation_error', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, {
      issues: [{ path: '', message: `At most ${MAX_JSON_DEPTH} levels of nested arrays and objects` }],
    });
  }
  return value;
}
