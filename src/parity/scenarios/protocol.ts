/**
 * The protocol around the resources: authentication, the error envelope, idempotency,
 * pagination and the quote rate limit.
 * @module
 */
import { CATALOG_STATUS } from '../reference.js';
import type { ScenarioContext } from '../context.js';
import type { ScenarioScript } from '../context.js';
import { offramp } from './bodies.js';

async function expectRawError(ctx: ScenarioContext, name: string, answer: Promise<Awaited<ReturnType<ScenarioContext['raw']>>>, codes: readonly string[]): Promise<void> {
  const observed = await answer;
  let code: unknown;
  try {
    code = (JSON.parse(observed.text) as Record<string, unknown>)['code'];
  } catch {
    code = undefined;
  }
  if (codes.length === 1) ctx.expectEqual(`${name}: code`, codes[0], code);
  else ctx.expectOneOf(`${name}: code`, codes, code);
  ctx.expectEqual(`${name}: HTTP status`, CATALOG_STATUS[codes[0] as string], observed.status);
  ctx.expectEnvelope(name, observed);
}

/** Protocol scenarios. */
export const PROTOCOL_SCENARIOS: readonly ScenarioScript[] = [
  {
    id: 'errors.authentication',
    title: 'Authentication errors and the envelope',
    promises: 'no or malformed Authorization: 401 authentication_required; an unknown key: 401 authentication_failed; a key of the other environment: 401 api_key_env_mismatch or authentication_failed; every error in the envelope with x-request-id',
    async run(ctx) {
      await expectRawError(ctx, 'no Authorization', ctx.raw('GET', '/v1/users', { auth: false }), ['authentication_required']);
      await expectRawError(ctx, 'Basic instead of Bearer', ctx.raw('GET', '/v1/users', { auth: 'Basic abc' }), ['authentication_required']);
      await expectRawError(ctx, 'unknown key', ctx.raw('GET', '/v1/users', { auth: `Bearer sk_test_${'0'.repeat(32)}` }), ['authentication_failed']);
      await expectRawError(ctx, 'live key on this environment', ctx.raw('GET', '/v1/users', { auth: `Bearer sk_live_${'0'.repeat(32)}` }), ['api_key_env_mismatch', 'authentication_failed']);
    },
  },
  {
    id: 'errors.request',
    title: 'Request errors: invalid JSON, missing Idempotency-Key',
    promises: 'a body that is not JSON: 400 invalid_json; a mutation without Idempotency-Key: 400 idempotency_key_required',
    async run(ctx) {
      await expectRawError(ctx, 'invalid JSON', ctx.raw('POST', '/v1/users', { body: '{"name": ' }), ['invalid_json']);
      const body = JSON.stringify({ external_id: ctx.externalId('nokey'), name: 'No Key', document_type: 'cpf', document_number: ctx.cpf() });
      await expectRawError(ctx, 'no Idempotency-Key', ctx.raw('POST', '/v1/users', { body, idempotencyKey: false }), ['idempotency_key_required']);
    },
  },
  {
    id: 'idempotency',
    title: 'Idempotency: replay, reuse with another body, in progress',
    promises: 'the same key with another body: 409 idempotency_key_reused; a same-key request still running: 409 idempotency_key_in_progress (where observable); the replay outcome is not shown',
    async run(ctx) {
      const key = ctx.idempotencyKey('users');
      const body = { external_id: ctx.externalId('idem'), name: 'Idem', document_type: 'cpf', document_number: ctx.cpf() } as const;
      const first = await ctx.step('first request', () => ctx.client.users.create(body, { idempotencyKey: key }));
      const firstAnswer = ctx.last();
      try {
        const replay = await ctx.client.users.create(body, { idempotencyKey: key });
        const answer = ctx.last();
        ctx.check('replay: outcome', 'finding', `${firstAnswer.status}, the first body again`, `${answer.status}, ${answer.text === firstAnswer.text ? 'the first body again' : 'another body'}`);
        ctx.expectEqual('replay: same user', first.id, replay.id, 'finding');
        ctx.check('replay: Idempotent-Replayed header', 'finding', 'true', String(answer.headers.get('idempotent-replayed')));
      } catch (error) {
        const e = error as { status?: number; code?: string };
        if (e.status === undefined) throw error;
        ctx.check('replay: outcome', 'finding', `${firstAnswer.status}, the first body again`, `${e.status} ${String(e.code)}`);
      }
      await ctx.expectError('same key, another body', () => ctx.client.users.create({ ...body, name: 'Other' }, { idempotencyKey: key }), 'idempotency_key_reused');
      // Two requests with one key at once: the second may find the first still running.
      const racing = ctx.idempotencyKey('race');
      const raceBody = { external_id: ctx.externalId('race'), name: 'Race', document_type: 'cpf', document_number: ctx.cpf() } as const;
      const outcomes = await Promise.allSettled([
        ctx.client.users.create(raceBody, { idempotencyKey: racing }),
        ctx.client.users.create(raceBody, { idempotencyKey: racing }),
      ]);
      const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as { status?: number; code?: string });
      const inProgress = refused.find((e) => e.code === 'idempotency_key_in_progress');
      if (inProgress !== undefined) ctx.expectEqual('in progress: HTTP status', 409, inProgress.status);
      else if (refused.length > 0) ctx.check('concurrent same-key requests', 'promise', 'success, or 409 idempotency_key_in_progress', refused.map((e) => `${e.status} ${String(e.code)}`).join(', '), false);
      else ctx.note('concurrent same-key requests', 'both succeeded (the first finished before the second arrived: in-progress not observable here)');
    },
  },
  {
    id: 'pagination',
    title: 'Cursor pagination of users',
    promises: 'limit 1 gives one item and a next_cursor; the cursor gives the next page; a bad cursor: 400 invalid_cursor; limit outside 1..100: 400 validation_error',
    async run(ctx) {
      for (const label of ['page-a', 'page-b']) {
        await ctx.step(`create user ${label}`, () => ctx.client.users.create({ external_id: ctx.externalId(label), name: 'Page', document_type: 'cpf', document_number: ctx.cpf() }));
      }
      const page = await ctx.step('list limit 1', () => ctx.client.users.list({ limit: 1 }));
      ctx.expectEqual('page size', 1, page.data.length);
      ctx.expectEqual('next_cursor', 'string', typeof page.next_cursor);
      if (typeof page.next_cursor === 'string') {
        const next = await ctx.step('next page', () => ctx.client.users.list({ limit: 1, cursor: page.next_cursor as string }));
        ctx.expectEqual('next page size', 1, next.data.length);
        ctx.expectTrue('next page item', 'another user', next.data[0]?.id !== page.data[0]?.id, String(next.data[0]?.id));
      }
      await expectRawError(ctx, 'bad cursor', ctx.raw('GET', '/v1/users?cursor=not-a-cursor'), ['invalid_cursor']);
      await expectRawError(ctx, 'limit 0', ctx.raw('GET', '/v1/users?limit=0'), ['validation_error']);
      await expectRawError(ctx, 'limit 101', ctx.raw('GET', '/v1/users?limit=101'), ['validation_error']);
    },
  },
  {
    id: 'rate-limit.headers',
    title: 'Headers of a quote answer',
    promises: 'every response carries x-request-id; rate-limit headers on success are not shown (recorded)',
    async run(ctx) {
      const userId = await ctx.approvedUser();
      await ctx.step('quote', () => ctx.client.quotes.create(offramp(userId)));
      const answer = ctx.last();
      ctx.expectTrue('x-request-id', 'present', answer.headers.get('x-request-id') !== null, String(answer.headers.get('x-request-id')));
      const limits = [...answer.headers.keys()].filter((k) => /rate|retry/i.test(k));
      ctx.note('rate-limit headers on success', limits.length === 0 ? 'none' : limits.map((k) => `${k}: ${answer.headers.get(k)}`).join('; '));
    },
  },
  {
    id: 'rate-limit.exceeded',
    title: 'Exhaust the quote limit (60 a minute per key)',
    promises: '429 rate_limit_exceeded with a Retry-After header in seconds and details.retry_after_seconds (integer)',
    needsRateLimit: true,
    async run(ctx) {
      const userId = await ctx.approvedUser();
      for (let i = 0; i < 61; i++) {
        try {
          await ctx.client.quotes.create(offramp(userId));
        } catch (error) {
          const e = error as { status?: number; code?: string; details?: Record<string, unknown> };
          if (e.status === undefined) throw error;
          ctx.expectEqual('code', 'rate_limit_exceeded', e.code);
          ctx.expectEqual('HTTP status', 429, e.status);
          const header = ctx.last().headers.get('retry-after');
          ctx.expectTrue('Retry-After', 'whole seconds', header !== null && /^\d+$/.test(header), String(header));
          ctx.expectEqual('details.retry_after_seconds', 'integer', Number.isInteger(e.details?.['retry_after_seconds']) ? 'integer' : typeof e.details?.['retry_after_seconds']);
          ctx.expectEnvelope('429', ctx.last());
          ctx.note('quotes accepted before the 429', String(i));
          return;
        }
      }
      ctx.check('61 quotes in a minute', 'promise', '429 rate_limit_exceeded', 'no 429', false);
    },
  },
];
