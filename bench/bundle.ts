/**
 * What a browser app downloads (issue 22): the built package bundled as partners bundle it, by
 * esbuild and by webpack 5, each fed the partner's code as `import` and as `require()` (TypeScript
 * with `module: commonjs`), gzipped, each file on its own as a server sends it. Since issue 34 the
 * targets read the total, every chunk the build emits (the first script alone let the answer
 * models load later unseen); the first script and what loads later are reported beside it. Then
 * what each part costs: zod/mini, the client, the models, the error classes, the events
 * (esbuild's metafile over the sources).
 *
 * Sizes do not depend on the machine's load. Run: `npm run build && node --import tsx bench/bundle.ts`; or call `run()`.
 */
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { SOURCES, esbuildBundle, inForm, root, webpackBundles, type Bundler, type Form } from '../test/support/bundlers.js';

/** One app, one bundler, one form. */
export interface BundleFigure {
  app: keyof typeof SOURCES;
  bundler: Bundler;
  form: Form;
  /** Gzipped bytes of every file of the build: what the targets read (issue 34). */
  total: number;
  /** Gzipped bytes of the first script. */
  initial: number;
  /** Gzipped bytes of what loads later. */
  lazy: number;
}

/** What one part of the client entry costs: minified bytes in the first script and later, and its share of the whole. */
export interface PartFigure {
  part: string;
  initialBytes: number;
  lazyBytes: number;
  share: number;
}

/** What {@link run} returns. */
export interface BundleBench {
  figures: BundleFigure[];
  /** Parts of `export * from 'pix-usdt'` with what it loads later (the answer models), from the sources. */
  parts: PartFigure[];
}

const FORMS: Form[] = ['import', 'require'];
const APPS = ['app', 'clientAll', 'modelsAll', 'constructEvent', 'webhooksAll'] as const;

// The part of the package a source file belongs to (issue 22's list).
function partOf(input: string): string {
  if (input.includes('node_modules/zod/')) return 'zod/mini';
  if (input.includes('node_modules/eventemitter3/')) return 'events (eventemitter3)';
  if (/src\/client\/errors\.ts$|src\/models\/errors\.ts$|src\/client\/codes\.ts$/.test(input)) return 'error classes and codes';
  if (input.includes('src/models/')) return 'models (schemas, parse)';
  if (/src\/(client|resources|internal)\//.test(input)) return 'the client (transport, retries, resources, pagination)';
  return 'other';
}

async function parts(): Promise<PartFigure[]> {
  const result = await build({
    stdin: { contents: "export * from './src/index.ts';", resolveDir: root, loader: 'ts', sourcefile: 'app.ts' },
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
  });
  const outputs = (result.metafile as Metafile).outputs;
  const entry = Object.keys(outputs).find((key) => outputs[key]?.entryPoint === 'app.ts') as string;
  const first = new Set<string>([entry]);
  for (const key of first) for (const imported of outputs[key]?.imports ?? []) if (imported.kind === 'import-statement') first.add(imported.path);
  const sums = new Map<string, { initialBytes: number; lazyBytes: number }>();
  for (const [key, output] of Object.entries(outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const sum = sums.get(partOf(input)) ?? { initialBytes: 0, lazyBytes: 0 };
      if (first.has(key)) sum.initialBytes += bytesInOutput;
      else sum.lazyBytes += bytesInOutput;
      sums.set(partOf(input), sum);
    }
  }
  const total = [...sums.values()].reduce((n, s) => n + s.initialBytes + s.lazyBytes, 0);
  return [...sums]
    .map(([part, s]) => ({ part, ...s, share: (s.initialBytes + s.lazyBytes) / total }))
    .filter((p) => p.initialBytes + p.lazyBytes > 0)
    .sort((a, b) => b.share - a.share);
}

/** Builds every app with both bundlers and both forms (webpack: one run, about 20 s of CPU). */
export async function run(): Promise<BundleBench> {
  const figures: BundleFigure[] = [];
  const webpackSources: Record<string, string> = {};
  for (const app of APPS) {
    for (const form of FORMS) {
      const code = inForm(SOURCES[app], form);
      const { total, initial, lazy } = await esbuildBundle(code);
      figures.push({ app, bundler: 'esbuild', form, total, initial, lazy });
      webpackSources[`${app} ${form}`] = code;
    }
  }
  for (const [name, { total, initial, lazy }] of Object.entries(await webpackBundles(webpackSources))) {
    const [app, form] = name.split(' ') as [keyof typeof SOURCES, Form];
    figures.push({ app, bundler: 'webpack', form, total, initial, lazy });
  }
  return { figures, parts: await parts() };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const bench = await run();
  console.table(bench.figures.map((f) => ({ app: f.app, bundler: f.bundler, form: f.form, 'total (B)': f.total, 'first script (B)': f.initial, 'later (B)': f.lazy })));
  console.table(bench.parts.map((p) => ({ part: p.part, 'first script (min B)': p.initialBytes, 'later (min B)': p.lazyBytes, share: `${(p.share * 100).toFixed(0)}%` })));
}
