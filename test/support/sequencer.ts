// The order vitest starts test files in: the ones that wait longest on child processes first, so
// that the two workers of a two-core CI machine finish together. vitest sorts by the durations it
// cached on earlier runs, and by file size on a fresh clone (CI's case), where these long files
// could start last and leave one worker alone for a minute. Only the order changes.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Slowest first (seconds on a fresh two-core clone, 2026-11-27). Unlisted files keep vitest's order after them. */
const SLOW_FIRST = [
  'test/package/consumer.test.ts', // 51 s: npm installs of the tarball, tsc, tsx
  'test/partner-backend/faults.test.ts', // 48 s
  'test/partner-backend/faults-postgres.test.ts', // 31 s
  'test/examples/examples.test.ts', // 27 s
  'test/docs/guides.test.ts', // 23 s
  'test/server/commands/commands.test.ts', // 21 s
  'test/server/cli/cli.test.ts', // 19 s
  'test/server/data/persistence.test.ts', // 17 s
  'test/browser/pix-checkout.test.ts', // 15 s
  'test/package/durable-object.test.ts', // 13 s
  'test/browser/inspector.test.ts', // 12 s
  'test/webhooks/receiver/stores.test.ts', // 12 s
];

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification): number => {
      const i = SLOW_FIRST.findIndex((path) => file.moduleId.endsWith(path));
      return i === -1 ? SLOW_FIRST.length : i;
    };
    // Array.prototype.sort is stable: vitest's order stays among equals.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}
