/**
 * The answer models load beside the first request that checks an answer (issue 22,
 * src/client/answer-models.ts). When they cannot load (a chunk the network refused), the answer
 * is still the caller's: `warn` returns it unchecked with a warning, `strict` refuses it, and
 * the next request tries to load them again. Here the module import fails on demand.
 */
import { describe, expect, it, vi } from 'vitest';
import type { WarningEvent } from '../../src/index.js';
import { ID, fixtures as f, json, makeClient, reply, requests, useMockServer } from './helpers.js';

const load = vi.hoisted(() => ({ fail: true, attempts: 0 }));

vi.mock('../../src/models/answers.js', async (importActual) => {
  load.attempts++;
  if (load.fail) throw new Error('Failed to fetch dynamically imported module');
  return importActual();
});

useMockServer();

describe('answer models that do not load', () => {
  it('validation off never asks for them', async () => {
    const { client } = makeClient({ validation: 'off' });
    reply(json(f.user));
    await expect(client.users.retrieve(ID)).resolves.toEqual(f.user);
    expect(load.attempts).toBe(0);
  });

  it('warn: the answer is returned as received, with a warning saying it was not checked', async () => {
    const { client } = makeClient();
    const warnings: WarningEvent[] = [];
    client.on('warning', (w) => warnings.push(w));
    reply(json(f.user));
    await expect(client.users.retrieve(ID)).resolves.toEqual(f.user);
    expect(requests()).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ method: 'GET', path: `/v1/users/${ID}`, status: 200, issues: [] });
    expect(warnings[0]!.message).toMatch(/could not be checked: the answer models did not load \(.*Failed to fetch dynamically imported module/);
    expect(load.attempts).toBe(1);
  });

  it('strict: the call is refused with ResponseValidationError, its cause kept', async () => {
    const { client } = makeClient({ validation: 'strict' });
    reply(json(f.user));
    const error = await client.users.retrieve(ID).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'ResponseValidationError', status: 200, code: 'response_validation_error' });
    expect((error as Error).cause).toBeInstanceOf(Error);
    // A failed load is not kept: this request asked again.
    expect(load.attempts).toBe(2);
  });

  it('once they load, answers are checked again', async () => {
    load.fail = false;
    const { client } = makeClient({ validation: 'strict' });
    reply(json({ ...f.user, kyc_status: 42 }), json(f.user));
    await expect(client.users.retrieve(ID)).rejects.toMatchObject({ name: 'ResponseValidationError', details: { issues: [expect.objectContaining({ path: 'kyc_status' })] } });
    await expect(client.users.retrieve(ID)).resolves.toEqual(f.user);
    expect(load.attempts).toBe(3);
  });
});
