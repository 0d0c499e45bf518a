// `npm pack` of this repository, as npm would deliver it to a partner: the tarball, its file list
// and sizes, and the packed package.json. Used by the tarball and consumer tests (dist/ must be
// built first, as `npm test` does).
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';

export const root = new URL('../../', import.meta.url).pathname;

export interface Packed {
  tarball: string;
  files: Array<{ path: string; size: number }>;
  /** Bytes of the .tgz a partner downloads. */
  size: number;
  /** Bytes on disk once installed. */
  unpackedSize: number;
  manifest: { name: string; exports: Record<string, unknown>; dependencies?: Record<string, string>; peerDependencies?: Record<string, string>; bin?: Record<string, string> };
}

/** Packs into `dir` (default: a new temporary folder, the caller's to remove). */
export function pack(dir = mkdtempSync(join(tmpdir(), 'pix-usdt-pack-'))): Packed {
  if (!existsSync(join(root, 'dist/index.js'))) throw new Error('dist/ is missing: run npm run build first.');
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const [info] = JSON.parse(out) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string; size: number }> }>;
  return {
    tarball: join(dir, info!.filename),
    files: info!.files,
    size: info!.size,
    unpackedSize: info!.unpackedSize,
    manifest: JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Packed['manifest'],
  };
}

/** Every file an `exports` entry (or its conditions) points at, e.g. `./dist/index.js`. */
export function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}

/** The import specifiers of the package's code entries: `pix-usdt`, `pix-usdt/webhooks`, ... (not its JSON documents). */
export function entrySpecifiers(manifest: Packed['manifest']): string[] {
  return Object.keys(manifest.exports)
    .filter((key) => !key.endsWith('.json'))
    .map((key) => (key === '.' ? manifest.name : `${manifest.name}/${key.slice(2)}`));
}

/** The JSON documents the package ships under a stable name (issue 36): `exports` key -> the repository's file. */
export function jsonEntries(manifest: Packed['manifest']): Array<{ specifier: string; file: string }> {
  return Object.entries(manifest.exports)
    .filter(([key]) => key.endsWith('.json') && key !== './package.json')
    .map(([key, target]) => ({ specifier: `${manifest.name}/${key.slice(2)}`, file: (target as string).replace(/^\.\//, '') }));
}

/**
 * The run's one packed tarball, in the scratch folder vitest's global setup shares (removed at
 * the end of the run: do not remove it). The first test file to ask packs it; the others, in
 * other workers, wait for it (an exclusive lock file, then the result written whole).
 */
export async function packShared(): Promise<Packed> {
  const dir = join(inject('sharedScratch'), 'pack');
  const result = join(dir, 'packed.json');
  mkdirSync(dir, { recursive: true });
  let mine = false;
  try {
    closeSync(openSync(join(dir, 'lock'), 'wx'));
    mine = true;
  } catch {
    // Another test file is packing.
  }
  if (mine) {
    let packed: Packed | { error: string };
    try {
      packed = pack(dir);
    } catch (error) {
      packed = { error: (error as Error).message };
    }
    writeFileSync(`${result}.tmp`, JSON.stringify(packed));
    renameSync(`${result}.tmp`, result);
  }
  for (let waited = 0; !existsSync(result); waited += 100) {
    if (waited > 180_000) throw new Error('Timed out waiting for another test file to pack the tarball.');
    await sleep(100);
  }
  const packed = JSON.parse(readFileSync(result, 'utf8')) as Packed | { error: string };
  if ('error' in packed) throw new Error(`npm pack failed: ${packed.error}`);
  return packed;
}
