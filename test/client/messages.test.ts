/**
 * Validation messages (issue 10): every issue names the field, what was expected and what was
 * received, the same in the client and over HTTP (one formatter, src/models/issues.ts), and the
 * message of a `ValidationError` carries the first issues.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import type { CreateQuoteBody } from '../../src/index.js';
import { PixUsdt, isClientValidationError, isValidationError, type PixUsdtError } from '../../src/index.js';
import { ListUsersParams } from '../../src/models/public.js';
import { describeReceived, parseRequest, summarizeIssues } from '../../src/models/issues.js';
import { createSandbox } from '../../src/sandbox/index.js';

const USER = '00000000-0000-4000-8000-000000000000';
const ONRAMP = {
  user_id: USER,
  source_currency: 'BRL',
  target_currency: 'USDT',
  destination_wallet_address: `0x${'a'.repeat(40)}`,
  destination_wallet_network: 'polygon',
} as const;

function setup() {
  const sandbox = createSandbox({ seed: 'messages' });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const http = async (method: string, path: string, body?: string) => {
    const response = await sandbox.fetch(`https://sandbox.pix-usdt.com${path}`, {
      method,
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      ...(body === undefined ? {} : { body }),
    });
    return { status: response.status, body: (await response.json()) as { code: string; details: { issues: Array<{ path: string; message: string }> } } };
  };
  return { client, http };
}

const failure = (promise: PromiseLike<unknown>): Promise<PixUsdtError> =>
  Promise.resolve(promise).then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as PixUsdtError,
  );

describe('over HTTP: no more "Invalid input"', () => {
  it('an amount sent as a number', async () => {
    const { http } = setup();
    const answer = await http('POST', '/v1/quotes', JSON.stringify({ ...ONRAMP, source_amount: 100 }));
    expect(answer.status).toBe(400);
    expect(answer.body.details.issues).toEqual([
      { path: 'source_amount', message: 'Expected a non-negative decimal string such as "100.00", received the number 100' },
    ]);
  });

  it('a missing body: every required field says it is missing', async () => {
    const { http } = setup();
    const answer = await http('POST', '/v1/users');
    expect(answer.body.code).toBe('validation_error');
    expect(answer.body.details.issues).toEqual([
      { path: 'external_id', message: 'Expected a string, received nothing (the field is missing)' },
      { path: 'name', message: 'Expected a string, received nothing (the field is missing)' },
      { path: 'document_type', message: 'Expected "cpf", received nothing (the field is missing)' },
      { path: 'document_number', message: 'Expected a string, received nothing (the field is missing)' },
    ]);
  });

  it('?limit=500', async () => {
    const { http } = setup();
    const answer = await http('GET', '/v1/users?limit=500');
    expect(answer.body.details.issues).toEqual([{ path: 'limit', message: 'Expected a number <= 100, received the number 500' }]);
  });

  it('no issue anywhere reads "Invalid input"', async () => {
    const { http } = setup();
    const bodies = ['{}', '[]', '"x"', JSON.stringify({ ...ONRAMP, user_id: 7, destination_wallet_network: 'eth', source_amount: true }), JSON.stringify({ source_currency: 'EUR' })];
    for (const body of bodies) {
      const answer = await http('POST', '/v1/quotes', body);
      expect(answer.status).toBe(400);
      for (const issue of answer.body.details.issues) {
        expect(issue.message).not.toMatch(/Invalid input/);
        expect(issue.message).toMatch(/^(Expected .+, received .+|Unknown fields? .+)$/);
      }
    }
  });
});

describe('through the client: the message carries the first issues', () => {
  it('a ValidationError says the field, the expectation and what was sent', async () => {
    const { client } = setup();
    const error = await failure(client.quotes.create({ ...ONRAMP, source_amount: 100 } as unknown as CreateQuoteBody));
    expect(isValidationError(error)).toBe(true);
    expect(error.message).toBe(
      'validation_error: The request is invalid. source_amount: Expected a non-negative decimal string such as "100.00", received the number 100',
    );
    expect(String(error)).toContain('source_amount: Expected a non-negative decimal string');
  });

  it('both amounts, or neither, are named as such', async () => {
    const { client } = setup();
    const both = await failure(client.quotes.create({ ...ONRAMP, source_amount: '1', target_amount: '2' } as unknown as CreateQuoteBody));
    expect(both.message).toContain('source_amount: Expected exactly one of source_amount and target_amount, received both');
    const neither = await failure(client.quotes.create(ONRAMP as unknown as CreateQuoteBody));
    expect(neither.message).toContain('received neither');
  });

  it('at most three issues in the message, and how many more; all of them in details', async () => {
    const { client } = setup();
    const error = await failure(client.users.create(undefined as never));
    expect(error.message).toMatch(/document_type: Expected "cpf", received nothing \(the field is missing\) \(and 1 more\)$/);
    expect(error.details?.issues).toHaveLength(4);
  });

  it('a page limit out of range is refused before sending, with what was passed', async () => {
    const { client } = setup();
    const error = await failure(client.users.list({ limit: 500 }));
    expect(isClientValidationError(error)).toBe(true);
    expect(error.message).toBe('Invalid limit: Expected an integer from 1 to 100, received 500');
    expect(error.details?.issues).toEqual([{ path: 'limit', message: 'Expected an integer from 1 to 100, received 500' }]);
  });
});

describe('the formatter', () => {
  const issuesOf = (schema: z.ZodMiniType, value: unknown) => {
    const outcome = parseRequest(schema, value);
    if (outcome.ok) throw new Error('expected issues');
    return outcome.issues.map((i) => i.message);
  };

  it('words every kind of issue as expected / received', () => {
    expect(issuesOf(z.string(), 5)).toEqual(['Expected a string, received the number 5']);
    expect(issuesOf(z.object({ a: z.number() }), { a: 'x' })).toEqual(['Expected a number, received "x"']);
    expect(issuesOf(z.enum(['a', 'b']), 'c')).toEqual(['Expected one of "a", "b", received "c"']);
    expect(issuesOf(z.literal('a'), null)).toEqual(['Expected "a", received null']);
    expect(issuesOf(z.string().check(z.maxLength(2)), 'abc')).toEqual(['Expected at most 2 characters, received "abc"']);
    expect(issuesOf(z.array(z.string()).check(z.minLength(1)), [])).toEqual(['Expected at least 1 item, received an array of 0 items']);
    expect(issuesOf(z.int(), 1.5)).toEqual(['Expected an integer, received the number 1.5']);
    expect(issuesOf(z.strictObject({}), { x: 1, y: 2 })).toEqual(['Unknown fields "x", "y": remove them']);
    expect(issuesOf(ListUsersParams, { limit: 0 })).toEqual(['Expected a number >= 1, received the number 0']);
  });

  it('a schema message of its own gets what was received appended', () => {
    expect(issuesOf(z.string().check(z.regex(/^\d+$/, 'Expected digits')), 'abc')).toEqual(['Expected digits, received "abc"']);
  });

  it('never echoes a free string (it may be a CPF, a Pix key or a secret)', () => {
    expect(describeReceived('52998224725')).toBe('a string of 11 characters');
    expect(describeReceived('ana@example.com')).toBe('a string of 15 characters');
    expect(describeReceived(`sk_test_${'a'.repeat(32)}`)).toBe('a string of 40 characters');
    expect(describeReceived('polygon')).toBe('"polygon"');
    expect(describeReceived({})).toBe('an object');
    expect(describeReceived([1])).toBe('an array of 1 item');
  });

  it('summarizes issues on one line', () => {
    const issues = [
      { path: '', message: 'A' },
      { path: 'b', message: 'B' },
      { path: 'c.d', message: 'C' },
      { path: 'e', message: 'E' },
    ];
    expect(summarizeIssues(issues)).toBe('(root): A; b: B; c.d: C (and 1 more)');
    expect(summarizeIssues(issues.slice(0, 1))).toBe('(root): A');
  });

  it('does not change the messages of the partner’s own zod schemas (no global config)', () => {
    const result = z.string().safeParse(5);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Invalid input');
  });
});
