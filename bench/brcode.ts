/**
 * BR Codes written and checked (issue 34, eighth pass): `buildBrCode` (each call a new amount,
 * as a checkout writes one per order) and `validateBrCode` of one code, from the built
 * `dist/pix.js`, against another build (DIR, a checkout with its own `npm run build`), the
 * builds alternating in one process, timed by this process's CPU time (bench/measure.ts). The
 * sandbox writes two codes an onramp lifecycle (the conversion's and the transaction's), without
 * `buildBrCode`'s read-back check since this pass (src/sandbox/core/wire.ts `brCode`).
 *
 *   npm run build && node --import tsx bench/brcode.ts [--baseline DIR] [--rounds 11]
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as PixEntry from '../src/pix/index.js';
import { type Case, compare } from './measure.js';

type Pix = typeof PixEntry;

const buildOf = async (dir: string): Promise<Pix> => (await import(pathToFileURL(path.join(path.resolve(dir), 'dist', 'pix.js')).href)) as Pix;

function casesOf(name: string, pix: Pix): Case[] {
  let n = 0;
  const input = () => ({ key: '123e4567-e12b-12d1-a456-426655440000', merchantName: 'PIX USDT SANDBOX', merchantCity: 'SAO PAULO', amount: `${100 + (++n % 100_000)}.50`, txid: 'ABCDEF0123456789ABCDEF012', singleUse: true });
  const code = pix.buildBrCode(input());
  return [
    { name: `${name} buildBrCode`, fn: () => pix.buildBrCode(input()) },
    {
      name: `${name} validateBrCode`,
      fn: () => {
        if (!pix.validateBrCode(code).valid) throw new Error('the code did not validate');
      },
    },
  ];
}

const flag = (name: string): string | undefined => {
  const at = process.argv.indexOf(name);
  return at < 0 ? undefined : process.argv[at + 1];
};
const baseline = flag('--baseline');
const cases = [...(baseline === undefined ? [] : casesOf('baseline', await buildOf(baseline))), ...casesOf('current', await buildOf(path.join(import.meta.dirname, '..')))];
const figures = await compare(cases, { rounds: Number(flag('--rounds') ?? 11), roundMs: 300, warmupMs: 500, clock: 'cpu' });
for (const f of figures) console.log(`${f.name.padEnd(26)} ${f.microsPerOp.toFixed(2)} us of CPU`);
if (baseline !== undefined) {
  for (const what of ['buildBrCode', 'validateBrCode']) {
    const of = (b: string): number => (figures.find((f) => f.name === `${b} ${what}`) as { microsPerOp: number }).microsPerOp;
    console.log(`${what}: current / baseline x${(of('current') / of('baseline')).toFixed(3)}`);
  }
}
