/**
 * Validation modes of answers: warn (default), strict, off.
 */
import { describe, expect, it } from 'vitest';
import type { WarningEvent } from '../../src/index.js';
import { ID, fixtures as f, json, makeClient, reply, useMockServer } from './helpers.js';

useMockServer();

const broken = { ...f.user, kyc_status: 42 };
const futureEnum = { ...f.user, kyc_status: 'video_review', brand_new_field: 'x' };

describe('warn (default)', () => {
  it('emits a warning and returns the data as received', async () => {
    const { client } = makeClient();
    const warnings: WarningEvent[] = [];
    client.on('warning', (w) => warnings.push(w));
    reply(json(broken));
    await expect(client.users.retrieve(ID)).resolves.toEqual(broken);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ method: 'GET', path: `/v1/users/${ID}`, status: 200, requestId: 'req_header' });
    expect(warnings[0]!.issues.map((i) => i.path)).toContain('kyc_status');
  });

  it('an unknown enum value and unknown fields parse without a warning', async () => {
    const { client } = makeClient();
    const warnings: WarningEvent[] = [];
    client.on('warning', (w) => warnings.push(w));
    reply(json(futureEnum));
    const user = await client.users.retrieve(ID);
    expect(user.kyc_status).toBe('video_review');
    expect((user as Record<string, unknown>)['brand_new_field']).toBe('x');
    expect(warnings).toHaveLength(0);
  });
});

describe('strict', () => {
  it('throws ResponseValidationError with the issues and the request id', async () => {
    const { client } = makeClient({ validation: 'strict' });
    reply(json(broken));
    await expect(client.users.retrieve(ID)).rejects.toMatchObject({
      name: 'ResponseValidationError',
      status: 200,
      requestId: 'req_header',
      details: { issues: [expect.objectContaining({ path: 'kyc_status' })] },
    });
  });

  it('refuses an unknown enum value', async () => {
    const { client } = makeClient({ validation: 'strict' });
    reply(json(futureEnum));
    await expect(client.users.retrieve(ID)).rejects.toMatchObject({ name: 'ResponseValidationError' });
  });

  it('a 2xx that is not JSON is refused', async () => {
    const { client } = makeClient();
    reply(() => new Response('not json', { status: 200 }));
    await expect(client.users.retrieve(ID)).rejects.toMatchObject({ name: 'ResponseValidationError', status: 200 });
  });
});

describe('off', () => {
  it('returns whatever came back, without a warning', async () => {
    const { client } = makeClient({ validation: 'off' });
    const warnings: unknown[] = [];
    client.on('warning', (w) => warnings.push(w));
    reply(json({ anything: true }));
    await expect(client.users.retrieve(ID)).resolves.toEqual({ anything: true });
    expect(warnings).toHaveLength(0);
  });
});
