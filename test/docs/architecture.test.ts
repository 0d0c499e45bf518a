/**
 * docs/architecture.md's layer diagram is the code's: every folder-level import edge whose
 * source is in the sandbox or the server appears in the diagram, and nothing else does. The
 * same graph has no cycle and follows the rule models, pix, storage <- core <- http <- plugins <- wiring,
 * and the server's rooms stand in their order: cli <- run <- commands <- http <- egress, data.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations (scripts/check-cycles.mjs).
import { cycles, importGraph } from '../../scripts/check-cycles.mjs';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const DOC = fileURLToPath(new URL('../../docs/architecture.md', import.meta.url));

function folderOf(file: string): string {
  const r = relative(SRC, file).replaceAll('\\', '/');
  for (const layer of ['storage', 'core', 'http', 'plugins/webhooks', 'plugins/faults']) if (r.startsWith(`sandbox/${layer}/`)) return layer;
  if (r.startsWith('sandbox/')) return 'wiring';
  const parts = r.split('/');
  // The server's rooms: its folders, and a loose file as a room of one (`server/process`).
  if (parts[0] === 'server') return `server/${(parts[1] as string).replace(/\.ts$/, '')}`;
  return (parts[0] as string).replace(/\.ts$/, '');
}

const graph = importGraph(SRC) as Map<string, string[]>;
const SERVER_ROOMS = ['server/cli', 'server/run', 'server/commands', 'server/http', 'server/workerd', 'server/egress', 'server/data', 'server/process'];
const SOURCES = new Set(['storage', 'core', 'http', 'plugins/webhooks', 'plugins/faults', 'wiring', 'testing', ...SERVER_ROOMS, 'durable-object']);

function codeEdges(): string[] {
  const edges = new Set<string>();
  for (const [file, deps] of graph) {
    const from = folderOf(file);
    if (!SOURCES.has(from)) continue;
    for (const dep of deps) {
      const to = folderOf(dep);
      if (to !== from) edges.add(`${from} --> ${to}`);
    }
  }
  return [...edges].sort();
}

function diagramEdges(): string[] {
  const doc = readFileSync(DOC, 'utf8');
  const block = /<!-- layers:start -->([\s\S]*?)<!-- layers:end -->/.exec(doc)?.[1] ?? '';
  return [...block.matchAll(/^\s*([\w/-]+) --> ([\w/-]+)\s*$/gm)].map((m) => `${m[1]} --> ${m[2]}`).sort();
}

// parity is client side (it imports the client and webhooks only); the server's CLI runs it.
// `index`: the client's entry (src/index.ts), which the CLI's commands use; it never imports the sandbox.
// testing (pix-usdt/testing) sits on the sandbox's entry (createTestSandbox); trigger runs its scenarios.
// durable-object (pix-usdt/durable-object) is a host of the sandbox, as the server is: on its entry (createStoredSandbox).
// The server's rooms, top down: the CLI runs the runners, which read the commands' options and
// start the HTTP serving, which uses webhook egress and the data folder (or the Durable Objects
// deployment on workerd, `server/workerd`, which imports none of ours); `server/process` (one
// loose file) is shared by the CLI and the data folder's lock.
const RANK: Record<string, number> = {
  models: 0, pix: 0, storage: 0, webhooks: 0, client: 0, parity: 0, index: 0, internal: 0, core: 1, http: 2, 'plugins/webhooks': 3, 'plugins/faults': 3, wiring: 4, testing: 4.5,
  'server/process': 5, 'durable-object': 5, 'server/data': 6, 'server/egress': 6, 'server/http': 7, 'server/workerd': 7, 'server/commands': 8, 'server/run': 9, 'server/cli': 10,
};

describe('docs/architecture.md', () => {
  it('its diagram lists exactly the folder imports of the sandbox and the server', () => {
    const fromCode = codeEdges();
    expect(fromCode.length).toBeGreaterThan(5);
    expect(fromCode).toContain('server/run --> testing');
    expect(fromCode).toContain('server/cli --> server/run');
    expect(diagramEdges()).toEqual(fromCode);
  });

  it('every edge points to a lower layer (a plugin never imports another plugin)', () => {
    for (const edge of codeEdges()) {
      const [from, to] = edge.split(' --> ') as [string, string];
      expect(RANK[to], edge).toBeDefined();
      expect(RANK[to] as number, edge).toBeLessThan(RANK[from] as number);
    }
  });

  it('the server has its rooms, few loose files, and no HTTP file imports a CLI type', () => {
    const rooms = new Set(codeEdges().flatMap((e) => e.split(' --> ')).filter((f) => f.startsWith('server/')));
    expect([...rooms].sort()).toEqual([...SERVER_ROOMS].sort());
    const loose = [...graph.keys()].filter((f) => /^server\/[^/]+\.ts$/.test(relative(SRC, f).replaceAll('\\', '/')));
    expect(loose.length).toBeLessThanOrEqual(3);
    expect(codeEdges().filter((e) => /^server\/(http|egress|data) --> server\/(cli|commands|run)$/.test(e))).toEqual([]);
  });

  it('src/ has no import cycle, type-only imports included', () => {
    expect(cycles(graph).map((c: string[]) => c.map((f) => relative(SRC, f)))).toEqual([]);
  });
});
