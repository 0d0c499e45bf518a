import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { inspectorUiVitePlugin } from './scripts/inspector-ui.js';
import SlowFirst from './test/support/sequencer.js';

/**
 * Test files that need a module graph of their own: they mock a module of ours (`vi.mock` applies
 * only to a graph that has not loaded it yet), stub a global our modules read once, or check
 * process-wide state that any other file's imports change (classic `zod` sets zod's global locale),
 * or measure their worker's live heap (what a file run before them leaves to collect is not theirs).
 */
const OWN_MODULES = [
  'test/webhooks/constant-time.test.ts', // vi.mock of src/webhooks/header.ts
  'test/client/messages.test.ts', // zod's global config, untouched by the SDK
  'test/client/uuid.test.ts', // stubs globalThis.crypto
  'test/sandbox/core/retention.test.ts', // the live heap per lifecycle, after a full GC
];

const src = (path: string): string => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  // The inspector's browser script, built by esbuild as the package build does.
  plugins: [inspectorUiVitePlugin],
  resolve: {
    // Examples and tests import the package by name, as partners do; these map to the sources.
    alias: [
      { find: /^pix-usdt\/models$/, replacement: src('models/public.ts') },
      { find: /^pix-usdt\/sandbox\/msw$/, replacement: src('sandbox/msw.ts') },
      { find: /^pix-usdt\/sandbox$/, replacement: src('sandbox/index.ts') },
      { find: /^pix-usdt\/pix\/testing$/, replacement: src('pix/testing.ts') },
      { find: /^pix-usdt\/pix$/, replacement: src('pix/index.ts') },
      { find: /^pix-usdt\/parity$/, replacement: src('parity/index.ts') },
      { find: /^pix-usdt\/testing$/, replacement: src('testing/index.ts') },
      { find: /^pix-usdt\/webhooks\/receiver$/, replacement: src('webhooks/receiver/index.ts') },
      { find: /^pix-usdt\/durable-object$/, replacement: src('durable-object/index.ts') },
      { find: /^pix-usdt\/webhooks$/, replacement: src('webhooks/index.ts') },
      { find: /^pix-usdt$/, replacement: src('index.ts') },
    ],
  },
  test: {
    // A scratch folder for the run, shared by the package tests (one packed tarball), removed at the end.
    globalSetup: ['test/support/global-setup.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'threads',
    // At least two files at a time. Many spend most of their time waiting on a child process (the
    // built server, a compiler, a browser, workerd); vitest's default (one less than the cores)
    // ran one file at a time on a two-core machine such as CI's, and left a core idle meanwhile.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // The files that wait longest start first (test/support/sequencer.ts).
    sequence: { sequencer: SlowFirst },
    // Two projects, one worker pool. Most files share their worker's loaded modules with the
    // files run before them in it (`isolate: false`): each file in a fresh module graph spent
    // 95 s of a fresh clone's run importing the same sources and packages again (about 25 s shared).
    // The files whose subject is per-process module state keep a fresh graph each.
    projects: [
      { extends: true, test: { name: 'shared', isolate: false, include: ['test/**/*.test.ts', 'examples/**/*.test.ts'], exclude: [...configDefaults.exclude, ...OWN_MODULES] } },
      { extends: true, test: { name: 'isolated', isolate: true, include: OWN_MODULES } },
    ],
  },
});
