/**
 * Users and KYC: creation, its errors, and the KYC helper.
 * @module
 */
import { KYC_STATUSES, KYC_VIEW_FIELDS, USER_FIELDS } from '../reference.js';
import type { ScenarioScript } from '../context.js';

const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** User scenarios. */
export const USER_SCENARIOS: readonly ScenarioScript[] = [
  {
    id: 'users.create',
    title: 'Create a user, read it back, list it',
    promises: 'User fields and types; document never returned in full; kyc_status in its enum; GET returns the same user',
    async run(ctx) {
      const cpf = ctx.cpf();
      const externalId = ctx.externalId('user');
      const user = await ctx.step('create', () => ctx.client.users.create({ external_id: externalId, name: 'Parity User', document_type: 'cpf', document_number: cpf }));
      ctx.expectStatusDecision('create', 201);
      ctx.expectFields('User', user, USER_FIELDS);
      ctx.expectEqual('external_id echoed', externalId, user.external_id);
      ctx.expectEqual('document_type', 'cpf', user.document_type);
      ctx.expectTrue('document_masked hides the number', 'not the full CPF', !String(user.document_masked).replace(/\D/g, '').includes(cpf), String(user.document_masked));
      ctx.expectOneOf('kyc_status', KYC_STATUSES, user.kyc_status);
      ctx.expectEqual('kyc_status after creation', 'pending', user.kyc_status, 'finding');
      const again = await ctx.step('retrieve', () => ctx.client.users.retrieve(user.id));
      ctx.expectStatusDecision('retrieve', 200);
      ctx.expectEqual('retrieve: same id', user.id, again.id);
      ctx.expectFields('retrieved User', again, USER_FIELDS);
    },
  },
  {
    id: 'users.errors',
    title: 'User creation errors: invalid CPF, duplicate CPF, duplicate external id, unknown user',
    promises: 'invalid_cpf; duplicate_cpf 409; duplicate_external_id 409; user_not_found 404; validation_error 400 on a malformed id',
    async run(ctx) {
      await ctx.expectError('invalid CPF', () => ctx.client.users.create({ external_id: ctx.externalId('bad'), name: 'Bad', document_type: 'cpf', document_number: '12345678900' }), 'invalid_cpf', { status: 400 });
      const cpf = ctx.cpf();
      const externalId = ctx.externalId('dup');
      await ctx.step('create the first user', () => ctx.client.users.create({ external_id: externalId, name: 'First', document_type: 'cpf', document_number: cpf }));
      await ctx.expectError('duplicate CPF', () => ctx.client.users.create({ external_id: ctx.externalId('other'), name: 'Second', document_type: 'cpf', document_number: cpf }), 'duplicate_cpf');
      await ctx.expectError('duplicate external_id', () => ctx.client.users.create({ external_id: externalId, name: 'Third', document_type: 'cpf', document_number: ctx.cpf() }), 'duplicate_external_id');
      await ctx.expectError('unknown user', () => ctx.client.users.retrieve(MISSING_ID), 'user_not_found');
      const malformed = await ctx.raw('GET', '/v1/users/not-a-uuid');
      ctx.expectEqual('malformed id: HTTP status', 400, malformed.status);
      const body = parse(malformed.text);
      ctx.expectEqual('malformed id: code', 'validation_error', body['code']);
      const issues = (body['details'] as Record<string, unknown> | undefined)?.['issues'];
      ctx.expectTrue('malformed id: details.issues', 'an array of { path, message }', Array.isArray(issues) && issues.every((i) => typeof i?.path === 'string' && typeof i?.message === 'string'), JSON.stringify(issues) ?? 'absent');
    },
  },
  {
    id: 'users.kyc',
    title: 'KYC through the helper: approved, rejected, in_review',
    promises: 'The helper returns the KYC status view; approved sets kyc_approved_at; the user follows',
    async run(ctx) {
      const make = (label: string) => ctx.step(`create user (${label})`, () => ctx.client.users.create({ external_id: ctx.externalId(label), name: 'Kyc User', document_type: 'cpf', document_number: ctx.cpf() }));
      const a = await make('kyc-approved');
      const view = await ctx.step('helper: approved', () => ctx.client.testHelpers.users.kyc(a.id, { status: 'approved' }));
      ctx.expectFields('KYC view', view, KYC_VIEW_FIELDS);
      ctx.expectEqual('approved: kyc_status', 'approved', view.kyc_status);
      ctx.expectTrue('approved: kyc_approved_at set', 'a timestamp', typeof view.kyc_approved_at === 'string', String(view.kyc_approved_at));
      const user = await ctx.step('retrieve approved user', () => ctx.client.users.retrieve(a.id));
      ctx.expectEqual('user after approval: kyc_status', 'approved', user.kyc_status);
      ctx.note('latest_submission.status after approval', view.latest_submission?.status);
      const r = await make('kyc-rejected');
      const rejected = await ctx.step('helper: rejected', () => ctx.client.testHelpers.users.kyc(r.id, { status: 'rejected' }));
      ctx.expectEqual('rejected: kyc_status', 'rejected', rejected.kyc_status);
      const p = await make('kyc-review');
      const review = await ctx.step('helper: in_review', () => ctx.client.testHelpers.users.kyc(p.id, { status: 'in_review' }));
      ctx.expectOneOf('in_review: kyc_status', KYC_STATUSES, review.kyc_status);
      ctx.expectEqual('in_review: kyc_status', 'pending', review.kyc_status, 'finding');
    },
  },
];

function parse(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
