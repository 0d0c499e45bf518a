/**
 * Issue 10, "Messages that read oddly": refusals of the state machines in words, the test helpers
 * in production, the conversion behind quote_already_consumed, and a `details.reason` for
 * transaction_limit_exceeded that a program can branch on.
 */
import { describe, expect, it } from 'vitest';
import { CONVERSION_MACHINE, KYC_MACHINE, QUOTE_MACHINE, TRANSACTION_MACHINE, type Machine, step } from '../../../src/sandbox/core/machines.js';
import { ApiError } from '../../../src/sandbox/core/errors.js';
import { createSandbox } from '../../../src/sandbox/index.js';
import { approvedUser, raw } from '../raw.js';
import { cpf, onrampBody } from '../../support/fixtures.js';

const START = '2026-05-01T00:00:00Z';

describe('invalid_transaction_state in words', () => {
  it('canceling a canceled conversion says which state allows it and which one it is in', async () => {
    const sb = createSandbox({ seed: 'msg-cancel', now: START });
    const userId = await approvedUser(sb);
    const quote = await raw(sb, 'POST', '/v1/quotes', onrampBody(userId));
    const conversion = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`);
    expect((await raw(sb, 'POST', `/v1/conversions/${conversion.body.id}/cancel`)).status).toBe(200);
    const again = await raw(sb, 'POST', `/v1/conversions/${conversion.body.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      code: 'invalid_transaction_state',
      message: 'Only a conversion in awaiting_deposit can be canceled; this one is canceled.',
      details: { state: 'canceled' },
    });
  });

  it('lists every state that allows the move', () => {
    expect(() => step(CONVERSION_MACHINE, 'completed', 'fail')).toThrow('Only a conversion in awaiting_deposit, funded, standby or liquidated can be marked failed; this one is completed.');
  });

  // Every refused move of every machine reads as a sentence: no trigger name, no fallback wording.
  const machines = [CONVERSION_MACHINE, QUOTE_MACHINE, TRANSACTION_MACHINE, KYC_MACHINE] as unknown as Array<Machine<string, string, string>>;
  for (const machine of machines) {
    it(`${machine.name}: every refusal names the allowed states in words`, () => {
      const states = [...new Set(machine.transitions.flatMap((row) => [row.from, row.to]))].filter((s): s is string => s !== null);
      const triggers = [...new Set(machine.transitions.map((row) => row.trigger))];
      let refused = 0;
      for (const trigger of triggers) {
        for (const state of states) {
          let error: unknown;
          try {
            step(machine, state, trigger);
            continue;
          } catch (caught) {
            error = caught;
          }
          expect(error).toBeInstanceOf(ApiError);
          const { code, message } = error as ApiError;
          // Refusal rows carry their own message (quote_expired, the KYC helper without a submission).
          if (code !== 'invalid_transaction_state' || machine.refusals.some((r) => r.from === state && r.trigger === trigger)) continue;
          refused++;
          expect(message).toMatch(new RegExp(`^(Only an? ${machine.name} in [a-z_, ]+ can [a-zA-Z ]+|An? ${machine.name} cannot .+); this one is ${state}\\.$`));
          expect(message).not.toContain('take the step');
        }
      }
      expect(refused).toBeGreaterThan(0);
    });
  }
});

describe('the test helpers in production', () => {
  it('answer 404 not_found (as the reference requires) saying that they exist only in the sandbox', async () => {
    const sb = createSandbox({ environment: 'production', now: START });
    const answer = await raw(sb, 'POST', '/v1/test_helpers/clock/advance', { seconds: 60 });
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe('not_found');
    expect(answer.body.message).toBe('No route for POST /v1/test_helpers/clock/advance: the test helpers exist only in the sandbox (sk_test_ keys), not in production.');
    // Any other unknown path keeps the plain message.
    expect((await raw(sb, 'GET', '/v1/nothing-here')).body.message).toBe('No route for GET /v1/nothing-here.');
  });
});

describe('quote_already_consumed', () => {
  it('names the conversion that consumed the quote, in the message and in details.conversion_id', async () => {
    const sb = createSandbox({ seed: 'msg-consumed', now: START });
    const userId = await approvedUser(sb);
    const quote = await raw(sb, 'POST', '/v1/quotes', onrampBody(userId));
    const first = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`);
    const second = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`);
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('quote_already_consumed');
    expect(second.body.details).toEqual({ conversion_id: first.body.id });
    expect(second.body.message).toContain(first.body.id);
  });

  it('names the transaction when POST /v1/transactions consumed it', async () => {
    const sb = createSandbox({ seed: 'msg-consumed-tx', now: START });
    const userId = await approvedUser(sb);
    const quote = await raw(sb, 'POST', '/v1/quotes', onrampBody(userId));
    const tx = await raw(sb, 'POST', '/v1/transactions', { quote_id: quote.body.id });
    const accept = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`);
    expect(accept.body.code).toBe('quote_already_consumed');
    expect(accept.body.details).toEqual({ conversion_id: null, transaction_id: tx.body.id });
    expect(accept.body.message).toContain(tx.body.id);
  });
});

describe('transaction_limit_exceeded details.reason', () => {
  it('is kyc_not_approved when the user has no approved KYC, with what to do in the message', async () => {
    const sb = createSandbox({ seed: 'msg-kyc', now: START });
    const user = await raw(sb, 'POST', '/v1/users', { external_id: 'k1', name: 'No KYC', document_type: 'cpf', document_number: cpf(1) });
    const quote = await raw(sb, 'POST', '/v1/quotes', onrampBody(user.body.id));
    const accept = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`);
    expect(accept.status).toBe(422);
    expect(accept.body).toMatchObject({ code: 'transaction_limit_exceeded', details: { reason: 'kyc_not_approved', limit: 'user_daily' } });
    expect(accept.body.message).toContain('Approve the KYC first');
  });

  it('is the level passed otherwise: user_daily, user_monthly, partner_daily, platform_monthly', async () => {
    const cases = [
      { limits: { user: { daily: '100.00' } }, reason: 'user_daily' },
      { limits: { user: { monthly: '100.00' } }, reason: 'user_monthly' },
      { limits: { partner: { daily: '100.00' } }, reason: 'partner_daily' },
      { limits: { platform: { monthly: '100.00' } }, reason: 'platform_monthly' },
    ] as const;
    for (const { limits, reason } of cases) {
      const sb = createSandbox({ seed: `msg-${reason}`, now: START, limits });
      const userId = await approvedUser(sb);
      const quote = await raw(sb, 'POST', '/v1/quotes', onrampBody(userId, '540.00'));
      const accept = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`);
      expect(accept.body, reason).toMatchObject({ code: 'transaction_limit_exceeded', details: { reason, limit: reason } });
    }
  });
});
