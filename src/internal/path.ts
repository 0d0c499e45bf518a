/**
 * The `path` template tag: every interpolated value is percent-encoded as one path segment,
 * so an id can never add a segment, a query or a fragment to the URL.
 */
import { invalidArgument } from '../client/errors.js';

export function path(strings: TemplateStringsArray, ...params: string[]): string {
  let out = strings[0] ?? '';
  for (let i = 0; i < params.length; i++) {
    const value = params[i];
    // '' would turn `/v1/users/{id}` into the listing; '.' and '..' are dot segments that URL
    // parsers resolve even when percent-encoded. None of them is an id.
    if (typeof value !== 'string' || value === '' || value === '.' || value === '..') {
      throw invalidArgument(`params.${i}`, 'a non-empty id', String(JSON.stringify(value)));
    }
    out += encodeURIComponent(value) + (strings[i + 1] ?? '');
  }
  return out;
}
