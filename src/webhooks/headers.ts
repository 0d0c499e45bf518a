/** Node's `IncomingHttpHeaders` and other plain header records. */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

/** Where the headers come from: a `Headers`, a plain object (any case), or a web `Request`. */
export type HeadersInput = Headers | HeaderRecord | Request;

/** @internal A web `Request` (duck-typed: polyfills and other realms count). */
export function isRequest(value: unknown): value is Request {
  const r = value as Partial<Request> | null;
  return typeof r === 'object' && r !== null && typeof r.arrayBuffer === 'function' && typeof r.headers?.get === 'function';
}

/** @internal One header, case-insensitively; repeated values joined as Node joins them. */
export function getHeader(headers: HeadersInput, name: string): string | undefined {
  const source = isRequest(headers) ? headers.headers : headers;
  if (typeof (source as Headers).get === 'function') return (source as Headers).get(name) ?? undefined;
  const record = source as HeaderRecord;
  // Node's req.headers are lowercase: the first lookup is the one that hits.
  const lower = name.toLowerCase();
  let value = record[lower] ?? record[name];
  if (value === undefined) for (const key in record) if (key.toLowerCase() === lower) value = record[key];
  return typeof value === 'string' ? value : value?.join(', ');
}
