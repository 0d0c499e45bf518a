/**
 * The `ts` blocks of the docs, and their type check against the built package (issue 27): each
 * block is a module of a scratch project whose `node_modules/pix-usdt` is this repository
 * (resolved through package.json `exports` to `dist/`, as a partner's project resolves it), with
 * the repository's other packages beside it (`@types/node`, msw, vitest, express's types,
 * fastify, hono...). Fragments get their preamble from an HTML comment right above the fence,
 * invisible where the Markdown is rendered (CONTRIBUTING.md, "Docs that run"):
 *
 *     <!-- ts-preamble
 *     import { PixUsdt } from 'pix-usdt';
 *     declare const client: PixUsdt;
 *     -->
 *     ```ts
 *     const user = await client.users.retrieve(id);
 *     ```
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** One ```ts block of a Markdown file. */
export interface Block {
  /** The Markdown file, relative to the repository. */
  file: string;
  /** Line of the block's first code line in the file (1-based). */
  line: number;
  code: string;
  /** From `<!-- ts-preamble ... -->` right above the fence; empty without one. */
  preamble: string;
}

/** The Markdown files whose `ts` blocks are checked: the README, CONTRIBUTING and every guide. */
export function checkedFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs];
}

const BLOCK = /(?:<!-- ts-preamble\n([\s\S]*?)-->\s*\n)?```ts\n([\s\S]*?)```/g;

/** Every ```ts block of `files`, with its preamble. */
export function collectBlocks(root: string, files: readonly string[]): Block[] {
  const blocks: Block[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(BLOCK)) {
      const fence = (match.index as number) + match[0].indexOf('```ts\n');
      blocks.push({ file, line: text.slice(0, fence).split('\n').length + 1, code: match[2] as string, preamble: match[1] ?? '' });
    }
  }
  return blocks;
}

/** One type error, placed in the Markdown: `docs/client.md:42: TS2304 Cannot find name 'client'.` */
export interface DocError {
  where: string;
  message: string;
}

/**
 * Type-checks every block as a module of a partner's ESM project (`module: nodenext`, `strict`,
 * DOM and Node types both, as a full-stack partner has them) against the package in `root`,
 * whose `dist/` must be built. Answers the errors placed in the Markdown; the scratch project is
 * made in `scratch`.
 */
export function typecheckBlocks(root: string, blocks: readonly Block[], scratch = mkdtempSync(join(tmpdir(), 'pix-usdt-docs-'))): DocError[] {
  const modules = join(scratch, 'node_modules');
  mkdirSync(modules, { recursive: true });
  // The package as a dependency (its exports point into dist/), and everything else the repository installed.
  symlinkSync(root, join(modules, 'pix-usdt'), 'dir');
  for (const name of readdirSync(join(root, 'node_modules'))) {
    if (name.startsWith('.') || name === 'pix-usdt') continue;
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
  }
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'docs-check', private: true, type: 'module' }));
  const files = new Map<string, { block: Block; preambleLines: number }>();
  blocks.forEach((block, i) => {
    const file = join(scratch, `block-${String(i).padStart(3, '0')}.ts`);
    // `export {}` makes each block a module of its own: no block sees another's names.
    writeFileSync(file, `${block.preamble}${block.code}\nexport {};\n`);
    files.set(file, { block, preambleLines: block.preamble === '' ? 0 : block.preamble.split('\n').length - 1 });
  });
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    typeRoots: [join(modules, '@types')],
  };
  const program = ts.createProgram([...files.keys()], options);
  const errors: DocError[] = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = `TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    const source = diagnostic.file;
    const entry = source === undefined ? undefined : files.get(source.fileName);
    if (source === undefined || entry === undefined) {
      errors.push({ where: source === undefined ? '(program)' : relative(scratch, source.fileName), message });
      continue;
    }
    const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const inBlock = line - entry.preambleLines;
    errors.push({
      where: inBlock >= 0 ? `${entry.block.file}:${entry.block.line + inBlock}` : `${entry.block.file}:${entry.block.line} (its preamble, line ${line + 1})`,
      message,
    });
  }
  return errors;
}
