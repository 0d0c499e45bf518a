/**
 * What every method returns: a promise of the parsed data that also reaches the raw answer,
 * in the manner of openai-node's `APIPromise.withResponse()`.
 * @module
 */

/** The answer behind a result: what a successful call's HTTP response said, beyond its body. */
export interface ResponseInfo {
  /** The HTTP response of the attempt that succeeded: `response.status`, `response.headers`. Its body has been read already (`bodyUsed`). */
  response: Response;
  /** Its `x-request-id` header, to quote to support; `null` without one. */
  requestId: string | null;
  /** The Idempotency-Key the call sent (mutations only; the same on every attempt). */
  idempotencyKey: string | undefined;
  /** `true` when the answer is a replay of a call already made with the same Idempotency-Key (`Idempotent-Replayed: true`). */
  idempotentReplayed: boolean;
  /** How many attempts the call took: 1 without a retry. */
  attempts: number;
}

/** What {@link ApiPromise.withResponse} resolves to: the parsed data and the answer it came from. */
export interface WithResponse<T> extends ResponseInfo {
  /** The parsed data, as awaiting the call would give it. */
  data: T;
}

// The executor of every ApiPromise's own (unused) promise, made once.
const settled = (resolve: (value: undefined) => void): void => resolve(undefined);
const dataOf = <T>(answer: WithResponse<T>): T => answer.data;

/**
 * A promise of the parsed data, as any other (`await`, `.then`, `.catch`), plus
 * {@link withResponse} for the request id, `Idempotent-Replayed`, the status and the headers (`response`):
 *
 * ```ts
 * const { data: user, requestId, idempotentReplayed } = await client.users.create(body).withResponse();
 * ```
 */
export class ApiPromise<T> extends Promise<T> {
  readonly #answer: Promise<WithResponse<T>>;
  #withResponse: Promise<WithResponse<T>> | undefined;

  /** Made by the client: `answer` is the call, resolving to the data and its response. */
  constructor(answer: Promise<WithResponse<T>>) {
    // A no-op executor: `then` below reads the answer instead (as openai-node does).
    super(settled as (resolve: (value: T) => void) => void);
    this.#answer = answer;
  }

  /**
   * Promises derived by `then`, `catch` and `finally` are plain promises (`catch` and `finally`
   * call `then`, and build their result with this constructor).
   */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** The parsed data together with the answer it came from (`response`, request id, replay flag, attempts). */
  withResponse(): Promise<WithResponse<T>> {
    // A plain object: the client's own may read `response` only when asked (src/client/transport.ts).
    return (this.#withResponse ??= this.#answer.then((answer) => ({ ...answer, response: answer.response })));
  }

  /** Like `Promise.prototype.then`, on the parsed data. */
  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    // One derived promise, not two: `answer.data` handed straight to `onfulfilled` (issue 34).
    return this.#answer.then(typeof onfulfilled === 'function' ? (answer) => onfulfilled(answer.data) : (dataOf as (answer: WithResponse<T>) => R1), onrejected) as Promise<R1 | R2>;
  }
}
