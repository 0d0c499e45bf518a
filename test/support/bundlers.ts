// What a partner's bundler makes of the package: the one place where the bundle test and the
// bundle bench (test/package/bundle.test.ts, bench/bundle.ts) build a partner's browser app. The
// package is reached by name ('pix-usdt'), through package.json `exports` (a package may import
// itself by name from inside its own folder), never through the repository's tsconfig paths, so
// what is measured is dist/ as a bundler resolves it: with its `module`, `browser`, `import` and
// `require` conditions.
//
// Two bundlers, each with code splitting as apps build: esbuild (splitting, ESM) and webpack 5
// (production, target web, terser). A bundle's first script is the entry chunk and every chunk
// it imports statically; what it imports with `import()` is lazy. Its total counts every chunk
// the build emits, each file gzipped on its own as a server sends it (issue 34: a budget read on
// the first script alone let 8.6 kB of answer models load later unseen).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import ts from 'typescript';
import webpack, { type Configuration } from 'webpack';

export const root = new URL('../../', import.meta.url).pathname;

/** How the partner's code reaches the package: `import`, or `require()` (TypeScript with `module: commonjs`). */
export type Form = 'import' | 'require';

/** Which bundler built it. */
export type Bundler = 'esbuild' | 'webpack';

/** One built app: gzipped sizes (bytes, minified, each file gzipped on its own) and what went where. */
export interface Bundle {
  /** Every chunk of the build: the first script and all it may load later, which its calls load. */
  total: number;
  /** The first script: the entry chunk and what it imports statically. */
  initial: number;
  /** Everything the app may load later (`import()` chunks). */
  lazy: number;
  /** How many files the build emitted. */
  files: number;
  /** The first script's minified text. */
  initialText: string;
  /** The source files (dist/..., node_modules/...) of the first script. */
  initialInputs: string[];
  /** The source files of every chunk. */
  inputs: string[];
}

/** A partner's TypeScript source; {@link inForm} compiles it as their project would. */
export const SOURCES = {
  /** A partner app: the client and three calls, one error check (issue 22: "client + 3 calls"). */
  app: `import { PixUsdt, isApiErrorCode } from 'pix-usdt';

const client = new PixUsdt({ apiKey: 'sk_test_' + 'a'.repeat(32) });

export async function checkout(userId: string, wallet: string): Promise<string | undefined> {
  const user = await client.users.retrieve(userId);
  const quote = await client.quotes.create({
    user_id: user.id, source_currency: 'BRL', target_currency: 'USDT', source_amount: '100.00',
    destination_wallet_address: wallet, destination_wallet_network: 'polygon',
  });
  try {
    return (await client.quotes.accept(quote.id)).pix_qr_code ?? undefined;
  } catch (error) {
    if (isApiErrorCode(error, 'quote_expired')) return undefined;
    throw error;
  }
}
`,
  /** Everything the client entry exports. */
  clientAll: `export * from 'pix-usdt';\n`,
  /** Every schema. */
  modelsAll: `export * from 'pix-usdt/models';\n`,
  /** A receiver that only verifies deliveries. */
  constructEvent: `import { constructEvent } from 'pix-usdt/webhooks';\n\nexport const verify = constructEvent;\n`,
  /** Everything the verification entry exports (the receiver kit is pix-usdt/webhooks/receiver). */
  webhooksAll: `export * from 'pix-usdt/webhooks';\n`,
} as const;

/**
 * The partner's source compiled by TypeScript as their project would: `module: esnext` keeps the
 * `import`, `module: commonjs` turns it into `require()` (the form webpack then resolves with its
 * `require` conditions).
 */
export function inForm(source: string, form: Form): string {
  const module = form === 'import' ? ts.ModuleKind.ESNext : ts.ModuleKind.CommonJS;
  return ts.transpileModule(source, { compilerOptions: { module, target: ts.ScriptTarget.ES2022 } }).outputText;
}

const gzip = (text: string): number => (text === '' ? 0 : gzipSync(text).length);
const gzipEach = (texts: string[]): number => texts.reduce((sum, text) => sum + gzip(text), 0);

/** Builds `source` (JavaScript, ESM or CommonJS) with esbuild as a browser app, code splitting on. */
export async function esbuildBundle(source: string): Promise<Bundle> {
  const result = await build({
    stdin: { contents: source, resolveDir: root, loader: 'js', sourcefile: 'app.js' },
    absWorkingDir: root,
    bundle: true,
    minify: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // Not the repository's tsconfig paths (which map pix-usdt to src/): the package's exports.
    tsconfigRaw: '{}',
  });
  const texts = new Map(result.outputFiles.map((file) => [relative(root, file.path), file.text]));
  const outputs = (result.metafile as Metafile).outputs;
  const entry = Object.keys(outputs).find((key) => outputs[key]?.entryPoint === 'app.js') as string;
  const first = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const key = stack.pop() as string;
    if (first.has(key)) continue;
    first.add(key);
    for (const imported of outputs[key]?.imports ?? []) if (imported.kind === 'import-statement') stack.push(imported.path);
  }
  // Files that put at least a byte in the output (esbuild also lists the ones it parsed and dropped).
  const inputsOf = (keys: Iterable<string>): string[] =>
    [...new Set([...keys].flatMap((key) => Object.entries(outputs[key]?.inputs ?? {}).filter(([, input]) => input.bytesInOutput > 0).map(([path]) => path)))].sort();
  const later = Object.keys(outputs).filter((key) => !first.has(key));
  const textsOf = (keys: Iterable<string>): string[] => [...keys].map((key) => texts.get(key) ?? '');
  const initial = gzipEach(textsOf(first));
  const lazy = gzipEach(textsOf(later));
  return {
    total: initial + lazy,
    initial,
    lazy,
    files: first.size + later.length,
    initialText: textsOf(first).join('\n'),
    initialInputs: inputsOf(first),
    inputs: inputsOf(Object.keys(outputs)),
  };
}

/**
 * Builds each source with webpack 5 as a production browser app (target web, terser, its default
 * conditions), all in one run. The sources are written to a scratch folder inside the repository
 * (so that `pix-usdt` resolves to this package by name), removed afterwards.
 */
export async function webpackBundles(sources: Record<string, string>): Promise<Record<string, Bundle>> {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const scratch = mkdtempSync(join(root, '.tmp', 'webpack-'));
  try {
    const names = Object.keys(sources);
    const configs: Configuration[] = names.map((name, i) => {
      // .cjs or .mjs: the repository's package.json says "type": "module", which would make a .js file ESM.
      const file = `entry-${i}.${/\brequire\(/.test(sources[name] as string) ? 'cjs' : 'mjs'}`;
      writeFileSync(join(scratch, file), sources[name] as string);
      return {
        name,
        mode: 'production',
        target: 'web',
        context: scratch,
        entry: `./${file}`,
        // A library, so that the entry's exports count as used (an app's `export *`).
        output: { path: join(scratch, `out-${i}`), filename: 'main.js', chunkFilename: '[id].js', library: { type: 'var', name: 'app' } },
        devtool: false,
        performance: { hints: false },
        infrastructureLogging: { level: 'error' },
      };
    });
    const compiler = webpack(configs);
    const multi = await new Promise<webpack.MultiStats>((resolve, reject) =>
      compiler.run((error, stats) => (error || !stats ? reject(error ?? new Error('webpack gave no stats')) : resolve(stats))),
    );
    await new Promise<void>((resolve) => compiler.close(() => resolve()));
    const bundles: Record<string, Bundle> = {};
    for (const stats of multi.stats) {
      const { compilation } = stats;
      if (compilation.errors.length > 0) throw new Error(`webpack: ${compilation.errors.map((e) => e.message).join('\n')}`);
      const outputPath = compilation.outputOptions.path as string;
      const chunks = [...compilation.chunks];
      const read = (list: typeof chunks): string[] => list.flatMap((chunk) => [...chunk.files]).map((file) => readFileSync(join(outputPath, file), 'utf8'));
      // The source files of chunks; a concatenated module lists the modules it holds.
      const inputsOf = (list: typeof chunks): string[] => {
        const files = list.flatMap((chunk) => [...compilation.chunkGraph.getChunkModulesIterable(chunk)]).flatMap((m) => {
          const inner = (m as { modules?: unknown }).modules;
          return Array.isArray(inner) ? (inner as webpack.Module[]) : [m];
        });
        return [...new Set(files.map((m) => relative(root, (m as { resource?: string }).resource ?? m.identifier())))].sort();
      };
      const initial = chunks.filter((chunk) => chunk.canBeInitial());
      const later = chunks.filter((chunk) => !chunk.canBeInitial());
      const [first, rest] = [read(initial), read(later)];
      const [initialBytes, lazyBytes] = [gzipEach(first), gzipEach(rest)];
      bundles[compilation.name as string] = {
        total: initialBytes + lazyBytes,
        initial: initialBytes,
        lazy: lazyBytes,
        files: first.length + rest.length,
        initialText: first.join('\n'),
        initialInputs: inputsOf(initial),
        inputs: inputsOf(chunks),
      };
    }
    return bundles;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
