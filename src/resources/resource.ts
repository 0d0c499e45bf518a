/**
 * The base of every resource: thin helpers over the transport, so that each method is one line.
 * @module
 */
import type * as z from 'zod/mini';
import type { ListEnvelope } from '../models/common.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { PagePromise } from '../client/pagination.js';
import type { Transport } from '../client/transport.js';
import type { RequestOptions } from '../client/types.js';

/** What a resource method says about its endpoint, beside the path. */
interface Endpoint<T> {
  /** Model of the answer; `null` for an empty answer (204). */
  schema: z.ZodMiniType<T> | null;
  /** Not retried on an unknown error code (the reference's rule for destructive operations). */
  destructive?: boolean;
}

/** A group of endpoints (`client.users`, `client.quotes`, ...). */
export abstract class APIResource {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /**
   * A GET answered by `schema` (`query` serialized by the transport).
   * @internal
   */
  protected _get<T>(path: string, { schema, query }: { schema: z.ZodMiniType<T>; query?: object }, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'GET', path, schema, query }, options);
  }

  /**
   * A paginated GET: the first page now, the next ones on iteration.
   * @internal
   */
  protected _list<T>(path: string, { schema }: { schema: z.ZodMiniType<ListEnvelope<T>> }, params: { limit?: number | undefined } | undefined, options?: RequestOptions): PagePromise<T> {
    return this.#t.list(path, schema, params, options);
  }

  /**
   * A POST: `{ schema, destructive: true }` for an operation not retried on an unknown error code.
   * @internal
   */
  protected _post<T>(path: string, { schema, destructive = false }: Endpoint<T>, body: unknown, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'POST', path, schema, body, destructive }, options);
  }

  /**
   * A PATCH answered by `schema`.
   * @internal
   */
  protected _patch<T>(path: string, { schema }: { schema: z.ZodMiniType<T> }, body: unknown, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'PATCH', path, schema, body }, options);
  }

  /**
   * A DELETE. Deletes are destructive whatever the options say: not retried on an unknown error code.
   * @internal
   */
  protected _delete<T>(path: string, { schema }: { schema: z.ZodMiniType<T> | null }, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'DELETE', path, schema, destructive: true }, options);
  }
}
