/**
 * The webhook handler on Express (4 and 5). Structural types only: no `express` import.
 * @module
 */
import type { WebhookHandler } from './handler.js';
import { type NodeRequestLike, type NodeResponseLike, answerNodeRequest, answerWithout, readRawBody, send } from './node.js';

/** What the Express adapter reads of a request. */
export interface ExpressRequestLike extends NodeRequestLike {
  /** The path below the mount point (`/` on the mounted path itself). */
  path?: string;
}

type Next = (error?: unknown) => void;
type Middleware = (req: ExpressRequestLike, res: NodeResponseLike, next: Next) => void;

/** What {@link expressWebhook} uses of an Express application or router. */
export interface ExpressAppLike {
  /** Adds a POST route. */
  post(path: string, ...handlers: Middleware[]): unknown;
  /** Adds middleware for a path and the paths below it. */
  use(path: string, ...handlers: Middleware[]): unknown;
}

interface LayerLike {
  name?: string;
  handle?: unknown;
}

/**
 * The handler as an Express route handler, for `app.post(path, toExpressHandler(handler))`. It
 * reads the raw body itself, or takes what a parser kept (`express.raw()`'s `Buffer`,
 * `req.rawBody` from `express.json({ verify: keepRawBody })`). When a JSON parser mounted before
 * the route consumed the body and kept nothing, it answers 500 (`misconfigured`, the platform
 * retries once fixed) and tells `onError`: prefer {@link expressWebhook}, which reads the body
 * before any parser.
 */
export function toExpressHandler(handler: WebhookHandler): Middleware {
  return (req, res, next) => {
    answerNodeRequest(handler, req).then((result) => send(res, result)).catch(next);
  };
}

/**
 * `verify` for Express's parsers, which keeps the raw bytes beside the parsed body:
 * `app.use(express.json({ verify: keepRawBody }))`. The webhook adapters then find them.
 */
export function keepRawBody(req: object, _res: unknown, buffer: Uint8Array): void {
  (req as { rawBody?: unknown }).rawBody = buffer;
}

const SETUP_ERROR =
  "expressWebhook could not reach the application's middleware stack to read the body before any parser. Fix the route: register app.post(path, express.raw({ type: '*/*' }), toExpressHandler(handler)) before app.use(express.json()), or keep the bytes with app.use(express.json({ verify: keepRawBody }))";

const ROUTER_ERROR =
  "expressWebhook needs the application, not a Router: the app's own parsers (app.use(express.json())) run before any router's. Call expressWebhook(app, '/full/path', handler), or in the router use router.post(path, express.raw({ type: '*/*' }), toExpressHandler(handler)) and mount the router before app.use(express.json())";

/** The stack of an Express 4 app (`_router`, created by its first `use`) or an Express 5 app (`router`). */
function stackOf(app: ExpressAppLike): LayerLike[] | undefined {
  const a = app as { _router?: { stack?: unknown }; router?: { stack?: unknown }; listen?: unknown };
  // Express 4's `app.router` is a getter that throws: `_router` first.
  const stack = a._router?.stack ?? a.router?.stack;
  return Array.isArray(stack) ? (stack as LayerLike[]) : undefined;
}

/**
 * Mounts the webhook handler on `path` of an Express app (4 or 5), at start-up, so that
 * it gets the raw bytes **even when a JSON parser was mounted first** (`app.use(express.json())`
 * before this call): a reader for `path` goes to the head of the middleware stack, reads the body
 * before any parser (which then skips it), and the route verifies those bytes. Throws at start-up,
 * with the fix, when the stack cannot be reached, or when given a Router (the app's parsers run
 * before a router's: use the app and the full path).
 *
 * @example
 * ```ts
 * const app = express();
 * app.use(express.json()); // the rest of the API keeps its parser
 * expressWebhook(app, '/webhooks/pix-usdt', createWebhookHandler({ secret, store, onEvent }));
 * ```
 */
export function expressWebhook(app: ExpressAppLike, path: string, handler: WebhookHandler): void {
  if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError(`expressWebhook needs a path starting with "/", got ${JSON.stringify(path)}`);
  if (typeof handler?.handle !== 'function') throw new TypeError('expressWebhook needs a handler made by createWebhookHandler');
  // A Router has a stack of its own but runs after the app's parsers: it cannot read first.
  if (typeof (app as { listen?: unknown }).listen !== 'function' && Array.isArray((app as { stack?: unknown }).stack)) throw new Error(ROUTER_ERROR);
  const reader: Middleware = (req, res, next) => {
    // Only the route itself, not paths below it: `use` matches by prefix.
    if (req.method?.toUpperCase() !== 'POST' || (req.path !== undefined && req.path !== '/' && req.path !== '')) return next();
    readRawBody(req, handler.maxBodyBytes).then((raw) => {
      if (raw.ok) {
        const r = req as ExpressRequestLike & { _body?: boolean };
        r.rawBody = raw.body;
        r.body = raw.body;
        r._body = true; // body-parser 1 (Express 4) skips a body already read; 2 sees the stream finished
        next();
      } else if (raw.tooLarge) {
        answerWithout(handler, req, raw).then((result) => send(res, result), next);
      } else {
        next();
      }
    }, next);
  };
  app.use(path, reader);
  const stack = stackOf(app);
  const layer = stack?.[stack.length - 1];
  if (stack === undefined || layer?.handle !== reader) throw new Error(SETUP_ERROR);
  stack.pop();
  // Express 4 starts its stack with its own `query` and `expressInit` layers: after them.
  let at = 0;
  while (at < stack.length && (stack[at]?.name === 'query' || stack[at]?.name === 'expressInit')) at++;
  stack.splice(at, 0, layer);
  app.post(path, toExpressHandler(handler));
}
