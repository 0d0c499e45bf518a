// No import cycle in src/ (`npm test` runs it). Edges are every relative `import`/`export ... from`
// and dynamic `import('...')`, `import type` included; strongly connected components by Tarjan.
// usage: node scripts/check-cycles.mjs [srcDir] [--json]   exits 1 and lists the cycles when there is one.
import console from 'node:console';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import process from 'node:process';

/** The import graph of the TypeScript files under `root`: file -> files it imports. */
export function importGraph(root) {
  const files = [];
  (function walk(d) {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(n) && !/\.d\.ts$/.test(n)) files.push(p);
    }
  })(root);
  const re = /(?:(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?|import\(\s*)['"](\.[^'"]+)['"]/g;
  const graph = new Map();
  for (const f of files) {
    const src = readFileSync(f, 'utf8');
    const deps = new Set();
    for (const m of src.matchAll(re)) {
      const base = resolve(dirname(f), m[1]).replace(/\.(js|mjs|cjs)$/, '');
      for (const c of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
        if (existsSync(c)) {
          deps.add(c);
          break;
        }
      }
    }
    graph.set(f, [...deps]);
  }
  return graph;
}

/** The cycles of a graph: components of more than one file, or a file importing itself. */
export function cycles(graph) {
  let i = 0;
  const index = new Map();
  const low = new Map();
  const on = new Set();
  const stack = [];
  const found = [];
  const visit = (v) => {
    index.set(v, i);
    low.set(v, i);
    i++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'src');
  const graph = importGraph(root);
  const found = cycles(graph).map((c) => c.map((f) => relative(process.cwd(), f)));
  if (process.argv.includes('--json')) console.log(JSON.stringify({ files: graph.size, cycles: found }));
  else if (found.length === 0) console.log(`No import cycle among ${graph.size} files of ${relative(process.cwd(), root) || '.'}.`);
  else {
    console.error(`${found.length} import cycle(s) in ${relative(process.cwd(), root)} (type-only imports count):`);
    for (const c of found) console.error(`  ${c.join(' <-> ')}`);
    console.error('Move the shared type or function to the lower layer (docs/architecture.md, "The rule").');
  }
  process.exit(found.length === 0 ? 0 : 1);
}
