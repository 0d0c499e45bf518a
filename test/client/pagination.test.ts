/**
 * Pagination: pages, cursors, empty pages with a cursor, the limit check.
 */
import { describe, expect, it } from 'vitest';
import { Page } from '../../src/index.js';
import { fixtures as f, json, makeClient, reply, requests, useMockServer } from './helpers.js';

useMockServer();

const user = (n: number) => ({ ...f.user, external_id: `ext-${n}` });

describe('list()', () => {
  it('awaits to the first page, which knows the next', async () => {
    const { client } = makeClient();
    reply(json({ data: [user(1), user(2)], next_cursor: 'c2' }), json({ data: [user(3)], next_cursor: null }));
    const page = await client.users.list({ limit: 2, kyc_status: 'approved' });
    expect(page).toBeInstanceOf(Page);
    expect(page.data.map((u) => u.external_id)).toEqual(['ext-1', 'ext-2']);
    expect(page.next_cursor).toBe('c2');
    expect(page.hasNextPage()).toBe(true);
    const next = await page.getNextPage();
    expect(next.data.map((u) => u.external_id)).toEqual(['ext-3']);
    expect(next.hasNextPage()).toBe(false);
    await expect(next.getNextPage()).rejects.toThrow(/No next page/);
    // The next page keeps the filters and adds the cursor.
    expect(Object.fromEntries(requests()[1]!.url.searchParams)).toEqual({ limit: '2', kyc_status: 'approved', cursor: 'c2' });
  });

  it('for await iterates every item of every page, following empty pages that carry a cursor', async () => {
    const { client } = makeClient();
    reply(
      json({ data: [user(1)], next_cursor: 'c2' }),
      json({ data: [], next_cursor: 'c3' }),
      json({ data: [user(2), user(3)], next_cursor: 'c4' }),
      json({ data: [], next_cursor: null }),
    );
    const seen: string[] = [];
    for await (const u of client.users.list()) seen.push(u.external_id);
    expect(seen).toEqual(['ext-1', 'ext-2', 'ext-3']);
    expect(requests().map((r) => r.url.searchParams.get('cursor'))).toEqual([null, 'c2', 'c3', 'c4']);
  });

  it('a page is itself iterable from where it stands', async () => {
    const { client } = makeClient();
    reply(json({ data: [user(1)], next_cursor: 'c2' }), json({ data: [user(2)], next_cursor: null }));
    const page = await client.users.list();
    const seen: string[] = [];
    for await (const u of page) seen.push(u.external_id);
    expect(seen).toEqual(['ext-1', 'ext-2']);
    const pages: number[] = [];
    reply(json({ data: [user(2)], next_cursor: null }));
    for await (const p of page.iterPages()) pages.push(p.data.length);
    expect(pages).toEqual([1, 1]);
  });

  it('stops after a break without fetching more', async () => {
    const { client } = makeClient();
    reply(json({ data: [user(1), user(2)], next_cursor: 'c2' }));
    for await (const u of client.users.list()) {
      expect(u.external_id).toBe('ext-1');
      break;
    }
    expect(requests()).toHaveLength(1);
  });

  it.each([0, 101, 1.5, -1, Number.NaN])('refuses limit %s before sending', async (limit) => {
    const { client } = makeClient();
    await expect(client.users.list({ limit })).rejects.toMatchObject({
      name: 'ClientValidationError',
      code: 'validation_error',
      details: { issues: [{ path: 'limit' }] },
    });
    expect(requests()).toHaveLength(0);
  });

  it.each([1, 100])('accepts limit %i', async (limit) => {
    const { client } = makeClient();
    reply(json({ data: [], next_cursor: null }));
    await client.quotes.list({ limit });
    expect(requests()[0]!.url.searchParams.get('limit')).toBe(String(limit));
  });

  it('the list promise supports catch and finally', async () => {
    const { client } = makeClient();
    let done = false;
    const error = await client.users
      .list({ limit: 0 })
      .finally(() => (done = true))
      .catch((e: unknown) => e);
    expect(done).toBe(true);
    expect(error).toMatchObject({ name: 'ClientValidationError' });
  });
});
