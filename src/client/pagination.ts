/**
 * Cursor pagination. `list()` returns a {@link PagePromise}: await it for the first
 * {@link Page}, or iterate it with `for await` over every item of every page.
 * @module
 */
import type { ListEnvelope } from '../models/common.js';

/** Fetches the page that starts at `cursor`. */
export type PageFetcher<T> = (cursor: string) => Promise<Page<T>>;

/** One page of a listing; async-iterable over its items and those of every later page. */
export class Page<T> implements ListEnvelope<T>, AsyncIterable<T> {
  /** The items of this page. */
  data: T[];
  /** Cursor of the next page; `null` on the last page. */
  next_cursor: string | null;
  readonly #fetchPage: PageFetcher<T>;

  constructor(envelope: ListEnvelope<T>, fetchPage: PageFetcher<T>) {
    this.data = envelope.data;
    this.next_cursor = envelope.next_cursor;
    this.#fetchPage = fetchPage;
  }

  /** Whether another page follows (it may be empty and still carry a cursor). */
  hasNextPage(): boolean {
    return typeof this.next_cursor === 'string' && this.next_cursor !== '';
  }

  /** Fetches the next page. Throws when there is none; check {@link hasNextPage} first. */
  getNextPage(): Promise<Page<T>> {
    if (!this.hasNextPage()) return Promise.reject(new Error('No next page: check hasNextPage() first'));
    return this.#fetchPage(this.next_cursor as string);
  }

  /** This page and every later one, following cursors through empty pages. */
  async *iterPages(): AsyncGenerator<Page<T>, void, undefined> {
    yield this;
    let page = this.hasNextPage() ? await this.getNextPage() : undefined;
    while (page !== undefined) {
      yield page;
      page = page.hasNextPage() ? await page.getNextPage() : undefined;
    }
  }

  /** Every item of this page and of every later page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/**
 * The answer of `list()`: a promise of the first page that is also async-iterable over every
 * item of every page. The first page is requested at once, as with any other method.
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  readonly #promise: Promise<Page<T>>;

  constructor(promise: Promise<Page<T>>) {
    this.#promise = promise;
  }

  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#promise.then(onfulfilled, onrejected);
  }

  /** Like `Promise.prototype.catch`, on the first page's promise. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.#promise.catch(onrejected);
  }

  /** Like `Promise.prototype.finally`, on the first page's promise. */
  finally(onfinally?: (() => void) | null): Promise<Page<T>> {
    return this.#promise.finally(onfinally);
  }

  /** Every item of every page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    yield* await this.#promise;
  }
}
