// Before `tsup` (part of `npm run build`): the declarations of src/, one .d.ts per module, emitted
// by tsc into .tmp/types without a type check (`npm run typecheck` is the check, in the same
// `npm test`). tsup's declaration bundler (rollup-plugin-dts) then bundles them per entry
// (tsup.config.ts). Given the TypeScript sources instead, it built and emitted through a program
// of its own: 77 of the build's 84 CPU-seconds on a fresh clone; tsc here and the bundling from
// these files take about 25 (docs/decisions.md, "Packaging").
//
// After tsup, `--names` gives the shared declaration chunks the names they had when bundled from
// the sources (`client-<hash>.d.ts`, not `client.d-<hash>.d.ts`: a chunk is named after its module).
//
//   node scripts/declarations.mjs          (before tsup)
//   node scripts/declarations.mjs --names  (after it)
import console from 'node:console';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

if (process.argv.includes('--names')) {
  const dist = new URL('../dist/', import.meta.url);
  const CHUNK = /^([\w-]+)\.d-([\w-]+)\.d\.(c?)ts$/;
  const files = readdirSync(dist).filter((file) => /\.d\.c?ts$/.test(file));
  for (const file of files) {
    // `./client.d-<hash>.js` (and `.cjs`) to `./client-<hash>.js`, in every declaration file.
    const text = readFileSync(new URL(file, dist), 'utf8');
    const renamed = text.replace(/(['"]\.\/[\w-]+)\.d-([\w-]+\.c?js['"])/g, '$1-$2');
    if (renamed !== text) writeFileSync(new URL(file, dist), renamed);
  }
  for (const file of files) {
    const match = CHUNK.exec(file);
    if (match) renameSync(new URL(file, dist), new URL(`${match[1]}-${match[2]}.d.${match[3]}ts`, dist));
  }
  process.exit(0);
}
// Modules deleted since the last build must not linger among the inputs.
rmSync(new URL('../.tmp/types', import.meta.url), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.declarations.json'], { cwd: root, stdio: 'inherit' });
if (run.status !== 0) {
  console.error('scripts/declarations.mjs: tsc could not emit the declarations of src/ (its messages are above); `npm run typecheck` says more.');
  process.exit(run.status ?? 1);
}
