// The built package, as a Node partner imports it (`pix-usdt` resolves to dist/node/index.js
// under the `node` condition; `pix-usdt/sandbox` to dist/sandbox.js), typed from the sources.
// Measuring dist rather than src keeps tsx's transform (and its `__name` wrapper around every
// closure it creates) out of the figures. `npm run bench` builds first.
import { existsSync } from 'node:fs';
import type * as Client from '../src/index.js';
import type * as Sandbox from '../src/sandbox/index.js';

const dist = new URL('../dist/', import.meta.url);
if (!existsSync(new URL('node/index.js', dist)) || !existsSync(new URL('sandbox.js', dist))) {
  throw new Error('dist/ is missing: run npm run build first (npm run bench does).');
}

/** `pix-usdt`, built. */
export const client = (await import(new URL('node/index.js', dist).href)) as typeof Client;
/** `pix-usdt/sandbox`, built. */
export const sandbox = (await import(new URL('sandbox.js', dist).href)) as typeof Sandbox;
