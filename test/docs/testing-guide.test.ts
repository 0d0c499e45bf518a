// docs/testing.md quotes the kit and the Jest configuration this repository runs; these checks
// keep it from drifting from them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/docs/generated.js';
import * as kit from '../../src/testing/index.js';
import { CALLS, CREATE_KINDS, HELPERS, STEP_KINDS } from '../../src/testing/file-schema.js';

const guide = readFileSync(join(ROOT, 'docs/testing.md'), 'utf8');

describe('docs/testing.md', () => {
  it('gives the Jest configuration for msw that examples/jest runs', () => {
    const block = /```js\n\/\/ jest\.config\.js\n([\s\S]*?)```/.exec(guide)?.[1] ?? '';
    const tested = readFileSync(join(ROOT, 'examples/jest/jest.config.cjs'), 'utf8');
    const lines = block.split('\n').filter((l) => /^\s+(transform|transformIgnorePatterns|testEnvironment):/.test(l));
    expect(lines.length).toBe(3);
    // Every value the guide gives is in the tested file (which adds `<rootDir>/dist/` and the mapping of this repository).
    for (const line of lines) for (const [value] of line.matchAll(/'[^']+'/g)) expect(tested).toContain(value);
  });

  it('names every step kind, helper and call of the scenario file format', () => {
    for (const name of [...Object.keys(STEP_KINDS), ...HELPERS, ...CALLS, ...CREATE_KINDS]) expect(guide).toContain(`\`${name}\``);
  });

  it('documents every function of pix-usdt/testing it shows', () => {
    for (const name of ['createTestSandbox', 'createUser', 'approvedUser', 'createConversion', 'quoteRequest', 'runScenarioFile', 'runTrigger', 'matchers']) {
      expect(typeof (kit as Record<string, unknown>)[name], name).toBe(name === 'matchers' ? 'object' : 'function');
      expect(guide).toContain(name);
    }
    for (const matcher of Object.keys(kit.matchers)) expect(guide).toContain(`.${matcher}(`);
  });
});
