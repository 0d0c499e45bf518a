import type { Body } from './body.js';
import { NODE_CRYPTO, getNodeCrypto } from './node-crypto.js';

/**
 * Which HMAC implementation to use. `'auto'` (default) takes Node's synchronous `node:crypto`
 * where it exists and WebCrypto (`crypto.subtle`) elsewhere; `'webcrypto'` forces WebCrypto
 * (for tests and benchmarks of the path that browsers, Deno, Bun and Workers take).
 */
export type CryptoEngine = 'auto' | 'webcrypto';

const encoder = /* @__PURE__ */ new TextEncoder();
const MAX_KEYS = 16;
const nodeKeys = new Map<string, unknown>();

/** A WebCrypto key being imported (`ready`), then imported (`key`, set once `ready` resolves). */
interface WebKey {
  key?: CryptoKey;
  ready: Promise<CryptoKey>;
}
const webKeys = new Map<string, WebKey>();

/**
 * Keys prepared once per secret: a WebCrypto import costs as much as signing a small body, and
 * a node:crypto KeyObject saves a tenth of each HMAC. Bounded, oldest out first.
 */
function cachedKey<T>(keys: Map<string, T>, secret: string, make: (bytes: Uint8Array) => T): T {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value as string);
    key = make(encoder.encode(secret));
    keys.set(secret, key);
  }
  return key;
}

function importKey(secret: string, bytes: Uint8Array): WebKey {
  const entry: WebKey = {
    ready: crypto.subtle.importKey('raw', bytes as Uint8Array<ArrayBuffer>, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
  };
  entry.ready.then(
    (key) => (entry.key = key),
    () => webKeys.get(secret) === entry && webKeys.delete(secret), // a failed import must not stay cached
  );
  return entry;
}

/**
 * Raw HMAC-SHA256 of `{t}.{body}` with WebCrypto. Once the key is imported,
 * `subtle.sign` is called before this returns: the caller can work while it runs (on Node, on
 * a worker thread).
 */
function webHmac(secret: string, t: string, body: Body): Promise<ArrayBuffer> {
  let data: Uint8Array;
  if (typeof body === 'string') {
    data = encoder.encode(`${t}.${body}`);
  } else {
    data = new Uint8Array(t.length + 1 + body.length);
    encoder.encodeInto(`${t}.`, data);
    data.set(body, t.length + 1);
  }
  const { key, ready } = cachedKey(webKeys, secret, (bytes) => importKey(secret, bytes));
  return key ? crypto.subtle.sign('HMAC', key, data as Uint8Array<ArrayBuffer>) : ready.then((k) => crypto.subtle.sign('HMAC', k, data as Uint8Array<ArrayBuffer>));
}

/**
 * @internal HMAC-SHA256 of `{t}.{body}`, keyed by the UTF-8 bytes of the whole secret string;
 * the signer and the verifier both come through here. With node:crypto, synchronous and in
 * hex (`digest('hex')` measured faster than `digest()`: no Buffer from the pool); with
 * WebCrypto, the raw bytes.
 */
export const hmac: (secret: string, t: string, body: Body, engine: CryptoEngine | undefined) => string | Promise<ArrayBuffer> =
  // Written so that a bundler keeps webHmac alone where NODE_CRYPTO is false (no wrapper).
  NODE_CRYPTO ? nodeOrWebHmac : webHmac;

function nodeOrWebHmac(secret: string, t: string, body: Body, engine: CryptoEngine | undefined): string | Promise<ArrayBuffer> {
  if (engine !== 'webcrypto') {
    const node = getNodeCrypto();
    if (node) {
      const h = node.createHmac('sha256', cachedKey(nodeKeys, secret, node.createSecretKey));
      // One update for text (one call into C++), two for bytes (no copy).
      return (typeof body === 'string' ? h.update(`${t}.${body}`) : h.update(`${t}.`).update(body)).digest('hex');
    }
  }
  return webHmac(secret, t, body);
}
