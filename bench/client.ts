// Client overhead (issue 6): a GET and a POST through `PixUsdt` against an in-process handler,
// next to a bare `fetch` of the same handler. Target: the client within 2x of bare fetch for
// both, response validation included.
import { compare, table, type Figure } from './measure.js';
import { client as built } from './package.js';

const { PixUsdt } = built;

const user = {
  id: '6f1c0a34-5d8e-4b7a-9c1d-2e3f4a5b6c7d', external_id: 'bench', name: 'Bench User', email: null,
  date_of_birth: null, user_type: 'individual', document_type: 'cpf', document_masked: '***.982.247-**',
  risk_profile: 'conservative', kyc_status: 'approved', kyc_approved_at: '2026-11-21T12:00:00.000Z',
  kyc_expires_at: '2027-11-21T12:00:00.000Z', custody_status: 'not_enrolled', custody_status_updated_at: null,
  metadata: {}, created_at: '2026-11-21T12:00:00.000Z', updated_at: '2026-11-21T12:00:00.000Z',
};
const body = JSON.stringify(user);
const headers = { 'content-type': 'application/json', 'x-request-id': 'req_bench' };
const base = 'https://sandbox.pix-usdt.com';

// The in-process "server": reads the request body on POST, answers a User.
async function handler(request: Request): Promise<Response> {
  if (request.method === 'POST') await request.text();
  return new Response(body, { status: request.method === 'POST' ? 201 : 200, headers });
}
const fetchLike = (input: RequestInfo | URL, init?: RequestInit) => handler(input instanceof Request ? input : new Request(input, init));

/** The reference unit of issue 6: one bare `fetch` GET of the trivial in-process handler (24 us where the issue measured it). */
export const bareFetchGet = async (): Promise<unknown> => (await fetchLike(`${base}/v1/users/${user.id}`, { headers: { authorization: 'Bearer x' } })).json();

const createBody = { external_id: 'bench', name: 'Bench User', document_type: 'cpf' as const, document_number: '52998224725' };

/** Runs the benchmark and returns its figures. */
export async function run(): Promise<{ get: Figure[]; post: Figure[] }> {
  const client = new PixUsdt({ apiKey: 'sk_test_' + 'a'.repeat(32), fetch: fetchLike });
  const get = await compare([
    { name: 'bare fetch GET /v1/users/{id}', fn: bareFetchGet },
    { name: 'PixUsdt users.retrieve (validated)', fn: () => client.users.retrieve(user.id) },
  ]);
  const post = await compare([
    {
      name: 'bare fetch POST /v1/users',
      fn: async () =>
        (await fetchLike(`${base}/v1/users`, {
          method: 'POST',
          headers: { authorization: 'Bearer x', 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify(createBody),
        })).json(),
    },
    { name: 'PixUsdt users.create (validated)', fn: () => client.users.create(createBody) },
  ]);
  table('Client overhead: GET', get);
  table('Client overhead: POST', post);
  return { get, post };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
