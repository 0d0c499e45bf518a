// Appends the matchers' declarations for vitest and Jest (src/testing/matchers-types.d.ts, below
// its import) to the declarations of pix-usdt/testing, where PixUsdtMatchers is declared. Run by
// `npm run build` after tsup (whose declaration build refuses an augmentation of a module it
// cannot resolve, as Jest's `expect` is for a partner who uses vitest).
import { readFileSync, writeFileSync } from 'node:fs';
import { URL } from 'node:url';

const source = readFileSync(new URL('../src/testing/matchers-types.d.ts', import.meta.url), 'utf8');
const body = source.slice(source.indexOf('\n', source.indexOf("from './matchers.js'")) + 1).replace(/^\s*\/\/ eslint-disable-next-line.*\n/gm, '');
const MARK = '// pix-usdt/testing: matchers in the test runners\' expect types (scripts/testing-types.mjs)';
for (const file of ['dist/testing.d.ts', 'dist/testing.d.cts']) {
  const url = new URL(`../${file}`, import.meta.url);
  const text = readFileSync(url, 'utf8');
  if (!/\binterface PixUsdtMatchers\b/.test(text)) throw new Error(`${file} does not declare PixUsdtMatchers: has the testing entry changed?`);
  if (text.includes(MARK)) continue;
  writeFileSync(url, `${text.trimEnd()}\n\n${MARK}\n${body}`);
}
