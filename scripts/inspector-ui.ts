/**
 * Builds the inspector's browser script (src/sandbox/inspector/ui/main.ts: preact + htm) with
 * esbuild, minified, as one string, and provides it to the package build (tsup) and the tests
 * (vitest) as the module `virtual:pix-usdt-inspector-ui`. No CDN: the script ships inside the
 * package and the console works offline.
 * @module
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

/** The id the engine imports the script under. */
export const UI_MODULE = 'virtual:pix-usdt-inspector-ui';

const entry = fileURLToPath(new URL('../src/sandbox/inspector/ui/main.ts', import.meta.url));

/** The minified browser script. */
export async function buildInspectorUi(): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2020',
    platform: 'browser',
    write: false,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  return result.outputFiles[0]?.text ?? '';
}

/** The module's source: the script as a string literal. */
export async function uiModuleSource(): Promise<string> {
  return `export default ${JSON.stringify(await buildInspectorUi())};\n`;
}

/** The esbuild plugin (tsup) that resolves the module. */
export const inspectorUiEsbuildPlugin = {
  name: 'pix-usdt-inspector-ui',
  setup(b: { onResolve: (o: { filter: RegExp }, f: (a: { path: string }) => { path: string; namespace: string }) => void; onLoad: (o: { filter: RegExp; namespace: string }, f: () => Promise<{ contents: string; loader: 'js' }>) => void }): void {
    b.onResolve({ filter: /^virtual:pix-usdt-inspector-ui$/ }, (args) => ({ path: args.path, namespace: 'inspector-ui' }));
    b.onLoad({ filter: /.*/, namespace: 'inspector-ui' }, async () => ({ contents: await uiModuleSource(), loader: 'js' }));
  },
};

/** The vite plugin (vitest) that resolves the module. */
export const inspectorUiVitePlugin = {
  name: 'pix-usdt-inspector-ui',
  resolveId(id: string): string | undefined {
    return id === UI_MODULE ? `\0${UI_MODULE}` : undefined;
  },
  load(id: string): Promise<string> | undefined {
    return id === `\0${UI_MODULE}` ? uiModuleSource() : undefined;
  },
};
