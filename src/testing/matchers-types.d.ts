// The matchers of pix-usdt/testing in the test runners' own `expect` types: vitest's `Matchers`,
// Jest's global `jest.Matchers` (@types/jest) and the `expect` package's (`@jest/globals`).
// A declaration file, because a runner that is not installed must not break a build: TypeScript
// checks an augmentation's module name in a .ts file (and tsup's declaration build), not in a
// .d.ts. The build appends everything below the import to dist/testing.d.ts and .d.cts
// (scripts/testing-types.mjs), where PixUsdtMatchers is declared.
import type { PixUsdtMatchers } from './matchers.js';

declare module 'vitest' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-explicit-any
  interface Matchers<T = any> extends PixUsdtMatchers<T> {}
}

declare module 'expect' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
  interface Matchers<R extends void | Promise<void>, T = unknown> extends PixUsdtMatchers<R> {}
}

declare global {
  namespace jest {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
    interface Matchers<R, T = {}> extends PixUsdtMatchers<R> {}
  }
}
