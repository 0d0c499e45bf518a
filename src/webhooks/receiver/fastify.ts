/**
 * The webhook handler on Fastify (4 and 5), as a plugin. Structural types only: no `fastify` import.
 * @module
 */
import type { WebhookHandler } from './handler.js';

/** What the plugin reads of a Fastify request. */
export interface FastifyRequestLike {
  /** The body as the scope's parser left it (raw bytes here). */
  body: unknown;
  /** The headers, lowercase names. */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The HTTP method. */
  method: string;
}

/** What the plugin uses of a Fastify reply. */
export interface FastifyReplyLike {
  /** Sets the status. */
  code(status: number): FastifyReplyLike;
  /** Sets headers. */
  headers(values: Record<string, string>): FastifyReplyLike;
  /** Sends the body. */
  send(payload?: unknown): FastifyReplyLike;
}

/** What the plugin uses of the (encapsulated) Fastify instance it is registered in. */
export interface FastifyInstanceLike {
  /** Drops this scope's content-type parsers (the parent's stay for its other routes). */
  removeAllContentTypeParsers(): void;
  /** Adds a content-type parser to this scope. */
  addContentTypeParser(
    contentType: string,
    opts: { parseAs: 'buffer'; bodyLimit?: number },
    parser: (request: never, body: Uint8Array, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
  /** Adds a POST route. */
  post(path: string, handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>): unknown;
}

/** Options of {@link fastifyWebhook}. */
export interface FastifyWebhookOptions {
  /** The route's path, e.g. `/webhooks/pix-usdt` (below the plugin's prefix, if any). */
  path: string;
  /** The handler made by `createWebhookHandler`. */
  handler: WebhookHandler;
}

/**
 * A Fastify plugin that mounts the webhook handler on `path`. Registered with `app.register`, it
 * lives in its own encapsulated scope, where every content type is read as raw bytes: Fastify's
 * JSON parser (always on) and any parser the app added keep working for every other route, and
 * never touch this one. Throws at start-up, with the fix, when given no path or no handler.
 *
 * @example
 * ```ts
 * const app = Fastify();
 * await app.register(fastifyWebhook, { path: '/webhooks/pix-usdt', handler: createWebhookHandler({ secret, store, onEvent }) });
 * ```
 */
export async function fastifyWebhook(scope: FastifyInstanceLike, options: FastifyWebhookOptions): Promise<void> {
  const { path, handler } = options ?? ({} as FastifyWebhookOptions);
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new TypeError(`fastifyWebhook needs a path starting with "/": app.register(fastifyWebhook, { path: '/webhooks/pix-usdt', handler }), got ${JSON.stringify(path)}`);
  }
  if (typeof handler?.handle !== 'function') {
    throw new TypeError("fastifyWebhook needs a handler made by createWebhookHandler: app.register(fastifyWebhook, { path, handler: createWebhookHandler({ secret, onEvent }) })");
  }
  if (typeof scope?.removeAllContentTypeParsers !== 'function' || typeof scope.addContentTypeParser !== 'function') {
    throw new TypeError('fastifyWebhook is a Fastify plugin: app.register(fastifyWebhook, { path, handler })');
  }
  // This scope only: the parent's parsers (JSON included) stay for every other route.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: handler.maxBodyBytes }, (_request, body, done) => done(null, body));
  scope.post(path, async (request, reply) => {
    // A request with no body gets no parser call: `body` is then undefined, which the handler refuses.
    const result = await handler.handle({ body: request.body ?? '', headers: request.headers, method: request.method });
    return reply.code(result.status).headers(result.headers).send(result.body);
  });
}
