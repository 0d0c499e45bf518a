/**
 * Builds a query string from a flat object. `undefined` and `null` are left out; everything
 * else is stringified and percent-encoded. Cheaper than URLSearchParams on the hot path.
 */
export function buildQuery(params: object | undefined): string {
  if (params === undefined) return '';
  let out = '';
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    out += `${out === '' ? '?' : '&'}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
  }
  return out;
}
