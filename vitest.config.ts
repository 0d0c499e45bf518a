import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { inspectorUiVitePlugin } from './scripts/inspector-ui.js';
import SlowFirst from './test/support/sequencer.js';

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
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
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
  },
});
