// The package as npm delivers it (issue 10): what `npm pack` puts in the tarball, checked against
// package.json (every `exports` target and the bin are in it, nothing else is), and its size
// against a budget (docs/decisions.md, "Packaging": no source maps, docs read on the repository).
import { describe, expect, it } from 'vitest';
import { exportTargets, packShared } from './pack.js';

// The run's one tarball (removed with the run's scratch folder).
const packed = await packShared();
const paths = packed.files.map((f) => f.path);

// Unpacked bytes. 3.6 MB with source maps; about 1.15 MB without. Headroom for growth, not for
// the maps to come back (they alone were 2.5 MB). Packed: see docs/decisions.md, "Tarball budget
// after issues 21 to 28", "with pix-usdt/durable-object" and "with the tenant-document schema"
// (each feature's share measured side by side). Issue 36 ships docs/openapi.json (205 kB, 15 kB
// gzipped) and the scenario-file schema (12 kB): both budgets grew by their size ("Tarball budget
// after issues 33, 35 and 36 landed together", then "... and 34 and 37", then "... issue 34's
// fourth pass").
const UNPACKED_BUDGET = 3_100_000;
const TARBALL_BUDGET = 830_000;

describe('the packed tarball', () => {
  it('holds every file package.json points at (exports, main, module, types, bin)', () => {
    const targets = [
      ...exportTargets(packed.manifest.exports),
      ...Object.values(packed.manifest.bin ?? {}),
      ...(['main', 'module', 'types'] as const).flatMap((k) => (packed.manifest as unknown as Record<string, string | undefined>)[k] ?? []),
    ].map((t) => t.replace(/^\.\//, ''));
    expect(targets.length).toBeGreaterThan(4);
    for (const target of targets) expect(paths, target).toContain(target);
  });

  it('holds only the built code, its typings, the package texts and the two JSON documents', () => {
    const allowed = /^(package\.json|README\.md|CHANGELOG\.md|LICENSE(\.md)?|dist\/.+\.(js|cjs|d\.ts|d\.cts)|docs\/(openapi|scenario-file\.schema)\.json)$/;
    expect(paths.filter((p) => !allowed.test(p))).toEqual([]);
    // No source maps (the largest files, which served nobody), no sources, no tests.
    expect(paths.some((p) => p.endsWith('.map'))).toBe(false);
  });

  it(`stays under ${UNPACKED_BUDGET / 1e6} MB unpacked and ${TARBALL_BUDGET / 1e3} kB downloaded`, () => {
    expect(packed.unpackedSize).toBeLessThan(UNPACKED_BUDGET);
    expect(packed.size).toBeLessThan(TARBALL_BUDGET);
  });

  it('tells npm where the repository, its issues and its docs are', () => {
    const manifest = packed.manifest as unknown as { repository?: { url?: string }; homepage?: string; bugs?: { url?: string } };
    expect(manifest.repository?.url).toMatch(/^git\+https:\/\/github\.com\/.+\.git$/);
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs?.url).toMatch(/^https:\/\/.+\/issues$/);
  });
});
