/**
 * The runtime matrix, real (issue 10): the same end-to-end scenario (test/runtime/scenario.ts: a
 * conversion to completed through the client against the in-process sandbox, then a webhook
 * signed and verified) on every runtime the README names, each from an npm devDependency:
 *
 *   Node 20 (this node), Node 22 and 24 (`npx -p node@N`), Bun (`bun`), Deno (`deno`),
 *   workerd (`workerd`: a module worker bundled as wrangler bundles one), Chromium
 *   (test/support/browser.ts: CHROMIUM_PATH, Debian's, else @sparticuz/chromium).
 *
 * Node, Bun and Deno import the package as a partner's project does: a scratch project whose
 * node_modules/pix-usdt links to this repository, so each runtime resolves `exports` with its own
 * conditions (dist/ must be built). workerd and Chromium run a bundle, as they are deployed.
 * Prints a table of what ran where, then `Runtimes N passed` (.ci/run adds it to its total), and
 * exits 1 if any runtime failed.
 *
 *   npm run build && node --import tsx scripts/runtimes.ts
 *   RUNTIMES="node20 bun" node --import tsx scripts/runtimes.ts
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type BuildOptions } from 'esbuild';
import { chooseChromium, launchChromium } from '../test/support/browser.js';
import { scenarioProblems } from '../test/runtime/scenario.js';

const root = new URL('../', import.meta.url).pathname;
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const SCENARIO = join(root, 'test/runtime/scenario.ts');

interface Row {
  runtime: string;
  version: string;
  how: string;
  ok: boolean;
  ms: number;
  detail: string;
}

/** Runs a command; resolves with its exit code and output (never rejects). */
function run(command: string, args: string[], options: { cwd?: string; timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The result line a script printed (the last line that parses as JSON). */
function lastJson(stdout: string): unknown {
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      // not the result line
    }
  }
  return { error: `no result printed: ${stdout.slice(-300)}` };
}

const RUNNER = `import { runScenario } from ${JSON.stringify(SCENARIO)};
const result = await runScenario().catch((error) => ({ error: error instanceof Error ? error.name + ': ' + error.message : String(error) }));
console.log(JSON.stringify(result));
`;

const WORKER = `import { runScenario } from ${JSON.stringify(SCENARIO)};
export default {
  async fetch() {
    const result = await runScenario().catch((error) => ({ error: error instanceof Error ? error.name + ': ' + error.message : String(error) }));
    return Response.json(result);
  },
};
`;

async function bundle(contents: string, outfile: string, options: BuildOptions): Promise<void> {
  await build({
    stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: 'runtime-entry.ts' },
    bundle: true,
    format: 'esm',
    outfile,
    logLevel: 'silent',
    // Not the repository's tsconfig paths (which map pix-usdt to src/): the package's exports.
    tsconfigRaw: '{}',
    ...options,
  });
}

/** A runtime that runs scenario.mjs from the scratch project and prints the result line. */
async function cli(runtime: string, command: string, args: string[], versionArgs: string[], scratch: string, how: string): Promise<Row> {
  const started = Date.now();
  const version = await run(command, versionArgs, { cwd: scratch, timeoutMs: 180_000 });
  const result = await run(command, args, { cwd: scratch });
  const ms = Date.now() - started;
  const firstLine = (version.stdout.trim().split('\n')[0] ?? '').replace(/^deno /, '').replace(/ \(.*$/, '');
  if (result.code !== 0) {
    return { runtime, version: firstLine || '?', how, ok: false, ms, detail: `exit ${String(result.code)}: ${(result.stderr || result.stdout).trim().slice(-400)}` };
  }
  const problems = scenarioProblems(lastJson(result.stdout));
  return { runtime, version: firstLine, how, ok: problems.length === 0, ms, detail: problems.join('; ') };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** workerd serving the bundled module worker; the scenario runs in its fetch handler. */
async function workerd(scratch: string): Promise<Row> {
  const started = Date.now();
  const dir = join(scratch, 'worker');
  mkdirSync(dir, { recursive: true });
  // As wrangler bundles a module worker (no nodejs_compat): esbuild, ESM, the workerd/worker/
  // browser export conditions, everything bundled.
  await bundle(WORKER, join(dir, 'worker.js'), {
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    target: 'es2022',
  });
  const port = await freePort();
  writeFileSync(
    join(dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-09-01",
);
`,
  );
  const version = (await run(bin('workerd'), ['--version'])).stdout.trim().replace(/^workerd /, '');
  const child = spawn(bin('workerd'), ['serve', join(dir, 'config.capnp')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  try {
    let response: Response | undefined;
    for (let attempt = 0; attempt < 100 && !response; attempt++) {
      if (child.exitCode !== null) break;
      response = await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
      if (!response) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!response) return { runtime: 'workerd', version, how: 'module worker (esbuild, as wrangler)', ok: false, ms: Date.now() - started, detail: `workerd did not answer: ${log.slice(-400)}` };
    const problems = scenarioProblems(await response.json());
    return { runtime: 'workerd', version, how: 'module worker (esbuild, as wrangler)', ok: problems.length === 0, ms: Date.now() - started, detail: problems.join('; ') };
  } finally {
    child.kill('SIGTERM');
  }
}

/** Chromium loading the scenario bundled for the browser. */
async function chromium(scratch: string): Promise<Row> {
  const started = Date.now();
  const file = join(scratch, 'page.js');
  await bundle(RUNNER.replace('console.log(JSON.stringify(result));', 'globalThis.__result = result;'), file, { platform: 'browser', target: 'es2022' });
  const script = readFileSync(file, 'utf8');
  let server: Server | undefined;
  let how = 'page (esbuild, platform browser)';
  try {
    const choice = await chooseChromium();
    how = `page, ${choice.source} Chromium`;
    server = createServer((req, res) => {
      if (req.url === '/page.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8"><script type="module" src="/page.js"></script>');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      await page.waitForFunction(() => '__result' in globalThis, undefined, { timeout: 60_000 });
      const result = await page.evaluate(() => (globalThis as unknown as { __result: unknown }).__result);
      const problems = scenarioProblems(result);
      return { runtime: 'Chromium', version: browser.version(), how, ok: problems.length === 0, ms: Date.now() - started, detail: problems.join('; ') };
    } finally {
      await browser.close();
    }
  } catch (error) {
    return { runtime: 'Chromium', version: '?', how, ok: false, ms: Date.now() - started, detail: (error as Error).message };
  } finally {
    if (server?.listening) await new Promise((resolve) => server!.close(resolve));
  }
}

async function main(): Promise<void> {
  if (!existsSync(join(root, 'dist/index.js'))) throw new Error('dist/ is missing: run npm run build first.');
  const wanted = (process.env['RUNTIMES'] ?? 'node20 node22 node24 bun deno workerd chromium').split(/\s+/).filter(Boolean);
  const scratch = mkdtempSync(join(tmpdir(), 'pix-usdt-runtimes-'));
  try {
    // A partner's project: pix-usdt in its node_modules (a link to this repository).
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'runtime-partner', private: true, type: 'module', dependencies: { 'pix-usdt': '*' } }));
    mkdirSync(join(scratch, 'node_modules'));
    symlinkSync(root, join(scratch, 'node_modules', 'pix-usdt'), 'dir');
    // The scenario compiled to JavaScript, its pix-usdt imports left for the runtime to resolve.
    await bundle(RUNNER, join(scratch, 'scenario.mjs'), { platform: 'neutral', target: 'es2022', external: ['pix-usdt', 'pix-usdt/*'] });

    const rows: Row[] = [];
    const nodeHow = 'imports the package (exports: node, import)';
    for (const name of wanted) {
      let row: Row;
      if (name === 'node20') row = await cli('Node 20', process.execPath, ['scenario.mjs'], ['--version'], scratch, `${nodeHow}, this node`);
      else if (name === 'node22' || name === 'node24') {
        const major = name.slice(4);
        row = await cli(`Node ${major}`, 'npx', ['-y', '-p', `node@${major}`, 'node', 'scenario.mjs'], ['-y', '-p', `node@${major}`, 'node', '--version'], scratch, `${nodeHow}, npx -p node@${major}`);
      } else if (name === 'bun') row = await cli('Bun', bin('bun'), ['scenario.mjs'], ['--version'], scratch, 'imports the package (exports: bun, import)');
      else if (name === 'deno') {
        row = await cli('Deno', bin('deno'), ['run', '--quiet', '--no-config', '--node-modules-dir=manual', '--allow-read', '--allow-env', 'scenario.mjs'], ['--version'], scratch, 'imports the package (exports: deno, node, import)');
      } else if (name === 'workerd') row = await workerd(scratch);
      else if (name === 'chromium') row = await chromium(scratch);
      else throw new Error(`Unknown runtime ${name}: use node20 node22 node24 bun deno workerd chromium`);
      rows.push(row);
      process.stdout.write(`${row.ok ? 'ok  ' : 'FAIL'} ${row.runtime} ${row.version} (${row.ms} ms)${row.detail ? `: ${row.detail}` : ''}\n`);
    }

    const header = ['runtime', 'version', 'how it loads pix-usdt', 'scenario', 'ms'];
    const cells = rows.map((r) => [r.runtime, r.version, r.how, r.ok ? 'passed' : 'FAILED', String(r.ms)]);
    const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
    const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
    console.log('\nRuntime matrix: a conversion to completed against the sandbox, a webhook signed and verified');
    console.log(line(header));
    console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
    for (const c of cells) console.log(line(c));
    const passed = rows.filter((r) => r.ok).length;
    console.log(`Runtimes ${passed} passed (of ${rows.length})`);
    if (passed !== rows.length) process.exitCode = 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
