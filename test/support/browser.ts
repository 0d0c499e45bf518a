// The one way tests and benches reach a real browser. Every browser test (and bench) launches
// Chromium through launchChromium(), so where the binary comes from is decided in one place:
//
//   1. CHROMIUM_PATH, when set (any Chromium or Chrome binary);
//   2. Debian's /usr/bin/chromium, when installed (PIX_USDT_BROWSER=npm skips it);
//   3. else the Chromium that `npm install` brought: @sparticuz/chromium, a brotli-compressed
//      headless Chromium inside the npm package, with copies of the system libraries it needs
//      (NSS, expat) and its fonts. A fresh machine with only Node and npm runs the browser tests.
//
// PIX_USDT_BROWSER=npm forces the npm one even where Debian's is installed (the proof, in .ci/run,
// that the browser tests need nothing but npm). docs/decisions.md, "Proofs", says why this package.
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { x as untar } from 'tar';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const root = new URL('../../', import.meta.url).pathname;
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** Which browser a launch uses and why; printed by .ci/run's table. */
export interface ChromiumChoice {
  executablePath: string;
  source: 'CHROMIUM_PATH' | 'debian' | 'npm';
  /** Environment the binary needs (the npm build loads its own copies of NSS). */
  env: Record<string, string>;
}

/**
 * Where @sparticuz/chromium's files are inflated: a folder of its own, named by the package's
 * version, under node_modules/.cache (so `rm -rf node_modules` removes it). The package's own
 * `executablePath()` inflates into the shared temp folder as `/tmp/chromium` and reuses whatever
 * is there without a version check, so another version's binary (or another project's) would be
 * picked up; this folder only counts once a complete inflate renamed it into place.
 */
export function npmChromiumDir(): { dir: string; bin: string; version: string } {
  const require = createRequire(import.meta.url);
  // Its exports do not list package.json: resolve the entry (build/cjs/index.cjs) and go up.
  const pkgDir = join(require.resolve('@sparticuz/chromium'), '..', '..', '..');
  const version = (JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { version: string }).version;
  const dir = process.env['PIX_USDT_CHROMIUM_DIR'] ?? join(root, 'node_modules', '.cache', `sparticuz-chromium-${version}`);
  return { dir, bin: join(pkgDir, 'bin'), version };
}

/** Inflates @sparticuz/chromium once per version (about 3 s) and returns its binary. */
async function npmChromium(): Promise<ChromiumChoice> {
  const { dir, bin } = npmChromiumDir();
  const executablePath = join(dir, 'chromium');
  if (!existsSync(join(dir, '.complete'))) {
    // Inflate beside the target, then rename: parallel test workers never see half a browser.
    const partial = `${dir}.partial-${process.pid}-${Date.now()}`;
    mkdirSync(partial, { recursive: true });
    try {
      await pipeline(createReadStream(join(bin, 'chromium.br')), createBrotliDecompress(), createWriteStream(join(partial, 'chromium'), { mode: 0o755 }));
      for (const archive of ['swiftshader.tar.br', 'al2023.tar.br', 'fonts.tar.br']) {
        const into = archive === 'fonts.tar.br' ? join(partial, 'fonts') : partial;
        mkdirSync(into, { recursive: true });
        await untar({ file: join(bin, archive), cwd: into, brotli: true, preserveOwner: false });
      }
      // Its fonts.conf names Lambda's folders (/var/task/fonts, /tmp/fonts): point at ours instead.
      writeFileSync(
        join(partial, 'fonts', 'fonts.conf'),
        `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts', 'fonts')}</dir>\n  <cachedir>${join(dir, 'fonts', 'cache')}</cachedir>\n</fontconfig>\n`,
      );
      writeFileSync(join(partial, '.complete'), `${new Date().toISOString()}\n`);
      if (existsSync(dir) && !existsSync(join(dir, '.complete'))) rmSync(dir, { recursive: true, force: true });
      try {
        renameSync(partial, dir);
      } catch (error) {
        // Another worker finished first: use its copy.
        if (!existsSync(join(dir, '.complete'))) throw error;
      }
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return {
    executablePath,
    source: 'npm',
    env: {
      // Its copies of NSS and expat (al2023.tar.br), first; a machine with its own still works.
      LD_LIBRARY_PATH: [join(dir, 'lib'), process.env['LD_LIBRARY_PATH']].filter(Boolean).join(':'),
      FONTCONFIG_PATH: join(dir, 'fonts'),
    },
  };
}

/** Which Chromium binary to launch (see the top of this file), inflating the npm one if needed. */
export async function chooseChromium(): Promise<ChromiumChoice> {
  const explicit = process.env['CHROMIUM_PATH'];
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`CHROMIUM_PATH is ${explicit}, which does not exist: unset it to use the Chromium that npm installed.`);
    return { executablePath: explicit, source: 'CHROMIUM_PATH', env: {} };
  }
  if (process.env['PIX_USDT_BROWSER'] !== 'npm' && existsSync(DEBIAN_CHROMIUM)) {
    return { executablePath: DEBIAN_CHROMIUM, source: 'debian', env: {} };
  }
  try {
    return await npmChromium();
  } catch (error) {
    throw new Error(
      `Could not prepare the Chromium from @sparticuz/chromium (${(error as Error).message}). Run npm install, or set CHROMIUM_PATH to a Chromium binary.`,
    );
  }
}

/** Where the Chromium binary is, or an Error that says how to get one. */
export async function chromiumExecutable(): Promise<string> {
  return (await chooseChromium()).executablePath;
}

/** Launches headless Chromium for a test. */
export async function launchChromium(): Promise<Browser> {
  const choice = await chooseChromium();
  return chromium.launch({
    executablePath: choice.executablePath,
    args: CHROMIUM_ARGS,
    env: { ...process.env, ...choice.env } as Record<string, string>,
  });
}

/** A page served on loopback: its origin, and how to stop serving it. */
export interface ServedPage {
  origin: string;
  close(): Promise<void>;
}

/**
 * Bundles a test page as a partner's bundler would (the package's `exports`, so the built files
 * of dist/, never the sources) and serves it at `/` on a loopback port. Throws when the bundle
 * reaches into src/ or misses the dist file it must test.
 */
export async function servePage(entry: string, options: { title: string; mustBundle: string }): Promise<ServedPage> {
  const { createServer } = await import('node:http');
  const { build } = await import('esbuild');
  const root = new URL('../../', import.meta.url).pathname;
  if (!existsSync(`${root}${options.mustBundle}`)) throw new Error('dist/ is missing: run npm run build first.');
  const bundle = await build({
    entryPoints: [`${root}${entry}`],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    // Not the repository's tsconfig paths (which map pix-usdt to src/): the package's exports.
    tsconfigRaw: '{}',
  });
  const sources = Object.keys(bundle.metafile.inputs).filter((input) => !input.includes('node_modules/'));
  if (!sources.includes(options.mustBundle) || sources.some((input) => input.startsWith('src/'))) {
    throw new Error(`The page must bundle the built package, not the sources: ${sources.join(', ')}`);
  }
  const script = bundle.outputFiles[0]!.text;
  const html = `<!doctype html><meta charset="utf-8"><title>${options.title}</title><body></body><script type="module" src="/page.js"></script>`;
  const server = createServer((req, res) => {
    if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
