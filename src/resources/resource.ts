/**
 * The base of every resource: thin helpers over the transport, so that each method is one line.
 * @module
 */
import type { ListEnvelope } from '../models/common.js';
import type { PickModel } from '../client/answer-models.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { PagePromise } from '../client/pagination.js';
import type { Transport } from '../client/transport.js';
import type { RequestOptions } from '../client/types.js';

/** What a resource method says about its endpoint, beside the path. */
interface Endpoint<T> {
  /** Picks the model of the answer from the answer models (`(m) => m.User`); `null` for an empty answer (204). */
  model: PickModel<T>;
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
  protected _get<T>(path: string, { model, query }: Endpoint<T> & { query?: object }, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'GET', path, model, query }, options);
  }

  /**
   * A paginated GET: the first page now, the next ones on iteration.
   * @internal
   */
  protected _list<T>(path: string, { model }: Endpoint<ListEnvelope<T>>, params: { limit?: number | undefined } | undefined, options?: RequestOptions): PagePromise<T> {
    return this.#t.list(path, model, params, options);
  }

  /**
   * A POST: `{ schema, destructive: true }` for an operation not retried on an unknown error code.
   * @internal
   */
  protected _post<T>(path: string, { model, destructive = false }: Endpoint<T>, body: unknown, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'POST', path, model, body, destructive }, options);
  }

  /**
   * A PATCH answered by `schema`.
   * @internal
   */
  protected _patch<T>(path: string, { model }: Endpoint<T>, body: unknown, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'PATCH', path, model, body }, options);
  }

  /**
   * A DELETE. Deletes are destructive whatever the options say: not retried on an unknown error code.
   * @internal
   */
  protected _delete<T>(path: string, { model }: Endpoint<T>, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'DELETE', path, model, destructive: true }, options);
  }
}
