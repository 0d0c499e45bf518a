/**
 * The cost of the depth limit on a JSON request body (issue 27): `parseJsonBody` (JSON.parse and
 * one pass counting brackets) beside a bare `JSON.parse`, for a typical quote body and for a body
 * at the 1 MB limit. Side by side, interleaved (bench/measure.ts).
 *
 *   node --import tsx bench/json-body.ts
 */
import { parseJsonBody } from '../src/sandbox/http/json-body.js';
import { compare } from './measure.js';

const quote = JSON.stringify({
  user_id: '5f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
  source_currency: 'USDT',
  target_currency: 'BRL',
  source_amount: '20.00',
  pix_key: '52998224725',
  pix_key_type: 'cpf',
  deposit_network: 'polygon',
});
// About 1 MB of users with metadata: strings, objects and arrays.
const item = { external_id: 'customer-42', name: 'Maria Silva', document_type: 'cpf', document_number: '529.982.247-25', metadata: { plan: 'gold', tags: 'a,b,c' } };
const large = JSON.stringify({ items: Array.from({ length: Math.floor(1_000_000 / JSON.stringify(item).length) }, () => item) });

const figures = await compare([
  { name: `JSON.parse, quote body (${quote.length} B)`, fn: () => JSON.parse(quote) },
  { name: `parseJsonBody, quote body (${quote.length} B)`, fn: () => parseJsonBody(quote) },
  { name: `JSON.parse, ${(large.length / 1e6).toFixed(2)} MB body`, fn: () => JSON.parse(large) },
  { name: `parseJsonBody, ${(large.length / 1e6).toFixed(2)} MB body`, fn: () => parseJsonBody(large) },
]);
for (const f of figures) console.log(`${f.name.padEnd(40)} ${f.microsPerOp.toFixed(2).padStart(10)} us`);
