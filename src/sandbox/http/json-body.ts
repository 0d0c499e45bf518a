/**
 * The one reader of JSON request bodies, for `/v1` and every other path the sandbox answers (the
 * inspector's actions): not JSON is `400 invalid_json`; JSON nested deeper than
 * {@link MAX_JSON_DEPTH} is `400 validation_error` before anything walks it (a body nested
 * 100,000 levels deep parses, but a recursive walk of it, `JSON.stringify` included, overflows
 * the stack: a 500 "Maximum call stack size exceeded").
 * @module
 */
import { ApiError } from '../core/errors.js';
import { nestsDeeperThan } from '../core/json-depth.js';

/** The deepest nesting of arrays and objects a request body may have (ours need 4). */
export const MAX_JSON_DEPTH = 64;

/** Parses a request body: `invalid_json` when it is not JSON, `validation_error` when it nests too deep. */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    // V8 parses iteratively: depth does not overflow here, only in what walks the value later.
    value = JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new ApiError('validation_error', `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`, {
      issues: [{ path: '', message: `At most ${MAX_JSON_DEPTH} levels of nested arrays and objects` }],
    });
  }
  return value;
}
