/**
 * The in-process cost of a new user (issue 34): `POST /v1/users` with a fresh Idempotency-Key and
 * a fresh CPF through the built sandbox's `fetch`, answer read, against another build of the
 * package (DIR is its `dist/`, say a build of main), alternating in one process, timed by this
 * process's CPU time (bench/measure.ts): the relative figure a busy machine can still give. A
 * sandbox serves 4,000 users, then a new one takes its place (its creation is counted alike).
 *
 *   npm run build && node --import tsx bench/new-user.ts --baseline ../main/dist [--current DIR] [--rounds 15]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { withCheckDigits } from '../src/pix/documents.js';
import { compare } from './measure.js';
import { sandbox as builtSandbox } from './package.js';

const PER_SANDBOX = 4000;

// Distinct valid CPFs (as test/support/fixtures.ts `cpf(n)`).
const cpf = (n: number): string => withCheckDigits(String(100_000_000 + ((n * 7919) % 800_000_000)), 10);

function newUsersOf(pkg: typeof builtSandbox): () => Promise<void> {
  let sandbox = pkg.createSandbox({ now: '2026-01-01T00:00:00Z' });
  let n = 0;
  return async () => {
    if (++n % PER_SANDBOX === 0) sandbox = pkg.createSandbox({ now: '2026-01-01T00:00:00Z' });
    const res = await sandbox.fetch('https://sandbox.local/v1/users', {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `bench-${n}` },
      body: JSON.stringify({ external_id: `ext-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) }),
    });
    if (res.status !== 201) throw new Error(`new user answered ${res.status}: ${await res.text()}`);
    await res.text();
  };
}

const at = process.argv.indexOf('--baseline');
const roundsAt = process.argv.indexOf('--rounds');
const rounds = roundsAt < 0 ? 15 : Number(process.argv[roundsAt + 1]);
// `--current DIR`: another build in place of this worktree's (one step against the one before it).
const currentAt = process.argv.indexOf('--current');
const buildOf = async (dir: string): Promise<typeof builtSandbox> => (await import(new URL('sandbox.js', pathToFileURL(`${path.resolve(dir)}/`)).href)) as typeof builtSandbox;
const cases = [{ name: 'current', fn: newUsersOf(currentAt < 0 ? builtSandbox : await buildOf(process.argv[currentAt + 1] as string)) }];
if (at >= 0) {
  cases.unshift({ name: 'baseline', fn: newUsersOf(await buildOf(process.argv[at + 1] as string)) });
}
const figures = await compare(cases, { rounds, roundMs: 500, warmupMs: 1000, clock: 'cpu' });
for (const f of figures) console.log(`${f.name.padEnd(9)} ${f.microsPerOp.toFixed(1)} us of CPU per new user`);
if (figures.length === 2) console.log(`current / baseline x${((figures[1] as { microsPerOp: number }).microsPerOp / (figures[0] as { microsPerOp: number }).microsPerOp).toFixed(3)}`);
