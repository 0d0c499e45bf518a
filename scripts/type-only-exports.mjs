// After `tsup`: marks `type` every name an entry's declarations export that its JavaScript does
// not. tsup's declaration bundler (rollup-plugin-dts) drops the `type` of `export type { User }`
// when the name is also a value elsewhere (a zod schema and its type share a name), so
// dist/index.d.ts would promise a `User` value that `pix-usdt` does not export: a program would
// compile and then fail to link. The public-names test (test/package/public-names.test.ts)
// checks the result against the JavaScript of each entry.
//
//   node scripts/type-only-exports.mjs   (part of `npm run build`)
import console from 'node:console';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

// `export { a as User, b as Other } from './chunk.js';` and `export { A, B };`
const EXPORT_LIST = /^export \{([^}]*)\}( from '[^']+')?;$/gm;

let changed = 0;
for (const conditions of Object.values(manifest.exports)) {
  if (typeof conditions !== 'object' || !conditions.import) continue;
  const { import: esm, require: cjs } = conditions;
  const values = new Set(Object.keys(await import(pathToFileURL(join(root, esm.default)).href)));
  for (const declarations of [esm.types, cjs?.types].filter(Boolean)) {
    const file = join(root, declarations);
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(EXPORT_LIST, (_, list, from = '') => {
      const specifiers = list.split(',').map((specifier) => specifier.trim()).filter((specifier) => specifier !== '');
      const marked = specifiers.map((specifier) => {
        if (specifier.startsWith('type ')) return specifier;
        const name = specifier.split(/\s+as\s+/).pop();
        return values.has(name) ? specifier : `type ${specifier}`;
      });
      return `export { ${marked.join(', ')} }${from};`;
    });
    if (fixed !== text) {
      writeFileSync(file, fixed);
      changed++;
    }
  }
}
console.log(`type-only-exports: ${changed} declaration file${changed === 1 ? '' : 's'} updated`);
