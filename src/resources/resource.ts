/**
 * The base of every resource: thin helpers over the transport, so that each method is one line.
 * @module
 */
import type { ListEnvelope } from '../models/common.js';
import type { AnswerShape } from '../models/answers-check.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { PagePromise } from '../client/pagination.js';
import type { Transport } from '../client/transport.js';
import type { RequestOptions } from '../client/types.js';

/** What a resource method says about its endpoint, beside the path. */
interface Endpoint<T> {
  /** The shape the answer is checked against (`A.User`, from ../models/answers-shapes.ts); `null` for an empty answer (204). */
  model: AnswerShape<T> | null;
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
   * A GET answered by `model` (`query` serialized by the transport).
   * @internal
   */
  protected _get<T>(path: string, { model, query }: Endpoint<T> & { query?: object }, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'GET', path, model, query }, options);
  }

  /**
   * A paginated GET: the first page now, the next ones on iteration.
   * @internal
   */
  protected _list<T>(path: string, { model }: Endpoint<ListEnvelope<T>> & { model: AnswerShape<ListEnvelope<T>> }, params: { limit?: number | undefined } | undefined, options?: RequestOptions): PagePromise<T> {
    return this.#t.list(path, model, params, options);
  }

  /**
   * A POST: `{ model, destructive: true }` for an operation not retried on an unknown error code.
   * @internal
   */
  protected _post<T>(path: string, { model, destructive = false }: Endpoint<T>, body: unknown, options?: RequestOptions): ApiPromise<T> {
    return this.#t.request({ method: 'POST', path, model, body, destructive }, options);
  }

  /**
   * A PATCH answered by `model`.
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
