/**
 * What every refused request must answer: a 4xx status, `content-type: application/json`, and
 * the error envelope `{ code, message, request_id, details? }` whose `request_id` equals the
 * `x-request-id` header. A replayed idempotent answer (header `Idempotent-Replayed: true`) is
 * the first answer again, body included, so its `request_id` is the first request's; its
 * header still names the new request.
 */
export async function envelopeProblem(response: Response): Promise<string | null> {
  if (response.status < 400 || response.status > 499) return `status ${response.status}`;
  const header = response.headers.get('x-request-id');
  if (header === null || !/^req_[0-9a-f]{32}$/.test(header)) return `x-request-id header ${String(header)}`;
  if (!(response.headers.get('content-type') ?? '').startsWith('application/json')) return `content-type ${String(response.headers.get('content-type'))}`;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `body is not JSON: ${text.slice(0, 80)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'body is not an object';
  const b = body as Record<string, unknown>;
  if (typeof b['code'] !== 'string' || !/^[a-z_]+$/.test(b['code'])) return `code ${JSON.stringify(b['code'])}`;
  if (typeof b['message'] !== 'string' || b['message'] === '') return 'message missing';
  if (typeof b['request_id'] !== 'string') return 'request_id missing';
  const replayed = response.headers.get('idempotent-replayed') === 'true';
  if (!replayed && b['request_id'] !== header) return `request_id ${b['request_id']} != header ${header}`;
  const extra = Object.keys(b).filter((k) => !['code', 'message', 'request_id', 'details'].includes(k));
  if (extra.length > 0) return `unexpected fields ${extra.join(',')}`;
  if (b['code'] === 'internal_error') return 'internal_error';
  return null;
}
