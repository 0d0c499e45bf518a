/**
 * The `path` template tag: every interpolated value is percent-encoded as one path segment,
 * so an id can never add a segment, a query or a fragment to the URL.
 */
import { ClientValidationError } from '../client/errors.js';

export function path(strings: TemplateStringsArray, ...params: string[]): string {
  let out = strings[0] ?? '';
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    // '' would turn `/v1/users/{id}` into the listing; '.' and '..' are dot segments that URL
    // parsers resolve even when percent-encoded. None of them is an id.
    if (typeof value !== 'string' || value === '' || value === '.' || value === '..') {
      throw new ClientValidationError(`Invalid path parameter: expected a non-empty id, got ${JSON.stringify(value)}`, [
        { path: `params.${i}`, message: 'Expected a non-empty id' },
      ]);
    }
    out += encodeURIComponent(value) + (strings[i + 1] ?? '');
  }
  return out;
}
