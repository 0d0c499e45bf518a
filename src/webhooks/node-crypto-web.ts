/**
 * ./node-crypto.ts in the WebCrypto-only build of `pix-usdt/webhooks` (`dist/webhooks-web.js`,
 * for browsers: scripts/webcrypto-only.ts puts this module in its place). Never imported by name.
 * @module
 */
import type { NodeCrypto } from './node-crypto.js';

export type { NodeCrypto, NodeHmac } from './node-crypto.js';

/** This build never uses node:crypto. */
export const NODE_CRYPTO: boolean = false;

/** Never node:crypto. */
export function getNodeCrypto(): NodeCrypto | null {
  return null;
}
