/**
 * node:crypto where it exists, reached at run time without a static import (which would break
 * browsers and Workers). The entry's WebCrypto-only build for browsers (`dist/webhooks-web.js`,
 * the `browser` condition of `pix-usdt/webhooks`) replaces this module with ./node-crypto-web.ts
 * (scripts/webcrypto-only.ts), so that its bundle carries none of the node:crypto path: each
 * branch of it is behind {@link NODE_CRYPTO}, which a bundler folds to `false` there.
 * @module
 */
import type { Body } from './body.js';

/** Whether this build may use node:crypto (`false` in the WebCrypto-only build). */
export const NODE_CRYPTO: boolean = true;

/** A node:crypto HMAC, as far as it is used here. */
export interface NodeHmac {
  update(data: Body): NodeHmac;
  digest(encoding: 'hex'): string;
}

/** The few members of node:crypto used here, typed locally: no Node types in the bundle. */
export interface NodeCrypto {
  createHmac(algorithm: 'sha256', key: unknown): NodeHmac;
  createSecretKey(key: Uint8Array): unknown;
}

let nodeCrypto: NodeCrypto | null | undefined;

/**
 * node:crypto, or `null` where it is absent: `process.getBuiltinModule` exists on Node 20.16+
 * (and on Deno and Bun), is absent elsewhere.
 */
export function getNodeCrypto(): NodeCrypto | null {
  if (nodeCrypto === undefined) {
    try {
      const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
      nodeCrypto = (proc?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined) ?? null;
    } catch {
      nodeCrypto = null; // a locked-down runtime: WebCrypto it is
    }
  }
  return nodeCrypto;
}
