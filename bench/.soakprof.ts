import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { soakRound } from './soak-load.js';
import { PixUsdt } from '../src/index.js';
const data = process.argv.includes('--data');
const dir = mkdtempSync(path.join(tmpdir(), 'sp-'));
const args = ['--cpu-prof', '--cpu-prof-dir', path.join(dir, 'prof'), '--cpu-prof-interval', '200', '--import', 'tsx', 'src/server/cli/main.ts', 'serve', '--port', '0', '--quote-rate-limit', '0',
  ...['platform.daily', 'platform.monthly', 'partner.daily', 'partner.monthly'].flatMap((l) => ['--limit', `${l}=100000000000.00`]), ...(data ? ['--data', path.join(dir, 'data')] : [])];
const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
const line = await new Promise<string>((r) => { let o = ''; child.stdout!.setEncoding('utf8').on('data', (c: string) => { o += c; if (o.includes('\n')) r(o.split('\n')[0]!); }); });
const ready = JSON.parse(line) as { url: string; api_key: string };
const admin = new PixUsdt({ apiKey: ready.api_key, baseUrl: ready.url, maxRetries: 0 });
const keys: string[] = [];
for (let i = 0; i < 20; i++) keys.push((await admin.testHelpers.tenants.create({})).api_key);
const port = Number(new URL(ready.url).port);
await soakRound({ port, keys, ms: 3000, inFlight: 16 });
const r = await soakRound({ port, keys, ms: Number(process.env.MS ?? 8000), inFlight: 16 });
console.log('lifecycles/s', (r.lifecycles / r.ms) * 1000, 'errors', r.errors, r.firstError);
await new Promise((res) => { child.once('exit', res); child.kill('SIGINT'); });
const f = readdirSync(path.join(dir, 'prof'))[0]!;
const p = JSON.parse(readFileSync(path.join(dir, 'prof', f), 'utf8'));
const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map<string, number>(); const incl = new Map<string, number>(); let total = 0;
for (const id of p.samples) {
  const n = byId.get(id); const fn = n.callFrame.functionName;
  if (fn === '(idle)' || fn === '(program)') continue; total++;
  const k = `${fn || '(anon)'} ${n.callFrame.url.replace(/.*\/wt-soak\//, '')}:${n.callFrame.lineNumber}`;
  self.set(k, (self.get(k) ?? 0) + 1);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) { const m = byId.get(cur); const kk = `${m.callFrame.functionName || '(anon)'} ${m.callFrame.url.replace(/.*\/wt-soak\//, '')}:${m.callFrame.lineNumber}`; if (!seen.has(kk)) { seen.add(kk); incl.set(kk, (incl.get(kk) ?? 0) + 1); } }
}
const top = (m: Map<string, number>, k: number, filt = (s: string) => true) => [...m].filter(([s]) => filt(s)).sort((a, b) => b[1] - a[1]).slice(0, k).map(([s, c]) => `${((100 * c) / total).toFixed(1).padStart(5)}% ${s}`).join('\n');
console.log('SELF\n' + top(self, 35));
console.log('INCL (src)\n' + top(incl, 60, (s) => s.includes('src/') || s.includes('libsql')));
