/**
 * Cursor pagination. `list()` returns a {@link PagePromise}: await it for the first
 * {@link Page}, or iterate it with `for await` over every item of every page.
 * @module
 */
import type { ListEnvelope } from '../models/common.js';
import { ApiPromise } from './api-promise.js';
import { invalidArgument } from './errors.js';

/** Options of `toArray`. */
export interface ToArrayOptions {
  /**
   * The most items to collect (a positive integer), required so that a listing that grew
   * cannot fill the memory: collecting stops there, and no later page is requested.
   */
  max: number;
}


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

  /**
   * The items of this page and of the later ones, in order, up to `max`: collecting stops at
   * `max` items, and no page is requested past the one that reached it. Fewer than `max` items
   * means the listing ended. Throws `ClientValidationError` for a `max` that is not a positive integer.
   *
   * ```ts
   * const users = await client.users.list({ kyc_status: 'approved' }).toArray({ max: 500 });
   * ```
   */
  async toArray(options: ToArrayOptions): Promise<T[]> {
    const max = options?.max;
    if (!(Number.isInteger(max) && max >= 1)) throw invalidArgument('max', 'a positive integer', String(max));
    const items: T[] = [];
    // Leaving the loop ends the iteration: no page past the one that reached max is requested.
    for await (const item of this) if (items.push(item) >= max) break;
    return items;
  }

  /** Every item of this page and of every later page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.iterPages()) yield* page.data;
  }
}

/**
 * The answer of `list()`: a promise of the first page that is also async-iterable over every
 * item of every page. The first page is requested at once, as with any other method, and
 * `.withResponse()` reaches the first page's response.
 */
export class PagePromise<T> extends ApiPromise<Page<T>> implements AsyncIterable<T> {
  /** Every item of every page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    yield* await this;
  }

  /** Every item of every page, up to `max`: see {@link Page.toArray}. */
  async toArray(options: ToArrayOptions): Promise<T[]> {
    return (await this).toArray(options);
  }
}
