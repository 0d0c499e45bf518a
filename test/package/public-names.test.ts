// A public surface we mean (issue 23): every entry of package.json `exports` publishes exactly the
// names listed in ./public-names.ts, as its type declarations (dist/*.d.ts) declare them and its
// JavaScript (dist/*.js) exports them. A name nobody listed fails here; adding one is one line there.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PUBLIC_NAMES } from './public-names.js';

const root = new URL('../../', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, { import: { types: string; default: string } } | string>;
};

const entries = Object.entries(manifest.exports)
  .filter((entry): entry is [string, { import: { types: string; default: string } }] => typeof entry[1] === 'object')
  .map(([subpath, conditions]) => ({
    name: subpath === '.' ? 'pix-usdt' : `pix-usdt/${subpath.slice(2)}`,
    declarations: join(root, conditions.import.types),
    javascript: join(root, conditions.import.default),
  }));

/** The names a declaration file exports, read from its syntax (`export { a as B } from`, `export *`, `export declare`), each with whether it is marked type-only. */
function declaredExports(file: string, seen = new Set<string>()): Map<string, { typeOnly: boolean }> {
  const names = new Map<string, { typeOnly: boolean }>();
  if (seen.has(file)) return names;
  seen.add(file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier) ? statement.moduleSpecifier.text : undefined;
      if (statement.exportClause === undefined && from !== undefined) {
        // `export * from './chunk.js'`: the chunk's exports, except `default`.
        const target = join(dirname(file), from.replace(/\.(c?)js$/, '.d.$1ts'));
        for (const [name, kind] of declaredExports(target, seen)) if (name !== 'default') names.set(name, { typeOnly: kind.typeOnly || statement.isTypeOnly });
      } else if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const specifier of statement.exportClause.elements) names.set(specifier.name.text, { typeOnly: statement.isTypeOnly || specifier.isTypeOnly });
      }
    } else if (ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      const typeOnly = ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement);
      const declared = ts.isVariableStatement(statement)
        ? statement.declarationList.declarations.map((d) => d.name.getText(source))
        : [(statement as ts.DeclarationStatement).name?.getText(source) ?? ''];
      for (const name of declared) names.set(name, { typeOnly });
    }
  }
  return names;
}

describe.each(entries)('$name', ({ name, declarations, javascript }) => {
  it('is built and listed in test/package/public-names.ts', () => {
    expect(existsSync(declarations), `${declarations} is missing: run npm run build`).toBe(true);
    expect(Object.keys(PUBLIC_NAMES), `add a block for ${name} to test/package/public-names.ts`).toContain(name);
  });

  it('declares a value exactly where its JavaScript exports one (a type of the same name is not a value)', async () => {
    const values = Object.keys((await import(pathToFileURL(javascript).href)) as object).sort();
    const declared = declaredExports(declarations);
    const declaredValues = [...declared].filter(([, kind]) => !kind.typeOnly).map(([n]) => n).sort();
    expect(declaredValues).toEqual(values);
  });

  it('publishes the names we mean, no more and no fewer', () => {
    const published = [...declaredExports(declarations)].map(([n, kind]) => (kind.typeOnly ? `type ${n}` : n));
    const meant = PUBLIC_NAMES[name] ?? [];
    const unlisted = published.filter((n) => !meant.includes(n)).sort();
    const missing = meant.filter((n) => !published.includes(n)).sort();
    expect({ unlisted, missing }, `${name}: a name nobody meant (or one gone): update test/package/public-names.ts on purpose`).toEqual({ unlisted: [], missing: [] });
  });
});

describe('the client entry', () => {
  it('names no internal helper of the models in any declaration file it reaches, and no schema as a value', () => {
    const internals = ['PARSE_OPTIONS', 'parseModel', 'parseRequest', 'toIssues', 'issueMessage', 'describeReceived', 'openEnumValues', 'openEnum', 'listOf', 'summarizeIssues', 'ANSWER_MODELS'];
    // dist/index.d.ts and the declaration chunks it imports.
    const files = new Set<string>();
    const visit = (file: string): void => {
      if (files.has(file)) return;
      files.add(file);
      for (const [, from] of readFileSync(file, 'utf8').matchAll(/from '(\.\/[^']+)'/g)) visit(join(dirname(file), (from as string).replace(/\.js$/, '.d.ts')));
    };
    visit(join(root, 'dist/index.d.ts'));
    expect(files.size).toBeGreaterThan(1);
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(internals.filter((n) => new RegExp(`\\b${n}\\b`).test(text)), file).toEqual([]);
    }
    expect(PUBLIC_NAMES['pix-usdt']).toContain('type User');
    expect(PUBLIC_NAMES['pix-usdt']).not.toContain('User');
  });
});
