/**
 * Record and replay: a cassette of sandbox traffic replays offline byte for byte, an
 * unrecorded request fails loudly, the redaction leaves no secret (the hygiene scanner), and
 * `diffCassette` finds exactly the one answer a wrong sandbox changes.
 */
import { describe, expect, it } from 'vitest';
import { PixUsdt, type FetchLike } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';
import { diffCassette, recordingFetch, replayFetch, runConformance, UnrecordedRequestError, type Cassette } from 'pix-usdt/parity';
import { isCpf } from '../../src/parity/check-digits.js';
import { leaks } from '../hygiene/leaks.js';
import { EVP, cpf } from '../support/fixtures.js';
import { FAST, breakDuplicateCpf, sandboxWithReceiver } from './helpers.js';

/** Wraps a fetch to keep the raw text of every request and answer, as the app saw them. */
function capture(fetch: FetchLike): { fetch: FetchLike; requests: string[]; answers: string[] } {
  const requests: string[] = [];
  const answers: string[] = [];
  return {
    requests,
    answers,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      requests.push(`${request.method} ${request.url} ${request.headers.get('authorization') ?? ''} ${await request.clone().text()}`);
      const response = await fetch(request);
      answers.push(`${response.status} ${[...response.headers].map(([k, v]) => `${k}:${v}`).join(',')} ${await response.clone().text()}`);
      return response;
    },
  };
}

/** A partner's script: whatever fetch it is given, the same calls in the same order. */
async function script(fetch: FetchLike, apiKey: string): Promise<string[]> {
  const client = new PixUsdt({ apiKey, baseUrl: 'https://sandbox.test', fetch, maxRetries: 0 });
  const user = await client.users.create({ external_id: 'replay-1', name: 'Ana', document_type: 'cpf', document_number: cpf(11) });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create({ user_id: user.id, source_currency: 'USDT', target_currency: 'BRL', source_amount: '10.000000', pix_key: EVP, pix_key_type: 'evp', deposit_network: 'polygon' });
  const conversion = await client.quotes.accept(quote.id);
  const done = await client.testHelpers.conversions.simulateOfframpDeposit(conversion.id, { settle: true });
  const duplicate = await client.users.create({ external_id: 'replay-2', name: 'Bia', document_type: 'cpf', document_number: cpf(11) }).catch((e: { code: string }) => e.code);
  await client.users.delete(user.id);
  return [user.id, quote.id, done.status, String(duplicate)];
}

function bodyOf(text: string): string {
  return text.slice(text.indexOf(' ', text.indexOf(' ') + 1) + 1);
}

describe('record and replay', () => {
  it('a recorded session replays offline byte for byte, statuses and headers included', async () => {
    const sandbox = createSandbox({ seed: 'replay' });
    const recorder = recordingFetch(sandbox.fetch);
    const liveCapture = capture(recorder);
    const liveResult = await script(liveCapture.fetch, sandbox.apiKey);
    expect(liveResult[2]).toBe('completed');
    expect(liveResult[3]).toBe('duplicate_cpf');
    const saved = recorder.serialize();

    const replay = replayFetch(saved);
    const offline = capture(replay);
    const offlineResult = await script(offline.fetch, `sk_test_${'x'.repeat(32)}`);
    expect(offlineResult).toEqual(liveResult);
    replay.assertDone();
    // Byte for byte: status, headers (but the wire-only ones) and body of every answer.
    const strip = (a: string): string => a.replace(/content-length:\d+,?/, '');
    expect(offline.answers.map(strip)).toEqual(liveCapture.answers.map(strip));
    expect(offline.answers.map(bodyOf)).toEqual(liveCapture.answers.map(bodyOf));
    expect((JSON.parse(saved) as Cassette).exchanges.map((e) => [e.request.method, e.response.status])).toEqual([
      ['POST', 201], ['POST', 200], ['POST', 201], ['POST', 201], ['POST', 200], ['POST', 409], ['DELETE', 204],
    ]);
  });

  it('a whole conformance run replays offline to the same report', async () => {
    const sandbox = createSandbox({ seed: 'offline' });
    const recorder = recordingFetch(sandbox.fetch);
    const options = { ...FAST, baseUrl: 'https://sandbox.test', runId: 'offline-run' } as const;
    const live = await runConformance({ ...options, apiKey: sandbox.apiKey, fetch: recorder });
    const replay = replayFetch(recorder.serialize());
    const offline = await runConformance({ ...options, apiKey: `sk_test_${'r'.repeat(32)}`, fetch: replay });
    replay.assertDone();
    const summary = (r: typeof live): unknown => r.scenarios.map((s) => [s.id, s.verdict, s.checks.map((c) => [c.name, c.ok])]);
    expect(summary(offline)).toEqual(summary(live));
    expect(offline.ok).toBe(true);
  });

  it('an unrecorded request fails loudly, naming what differs', async () => {
    const sandbox = createSandbox();
    const recorder = recordingFetch(sandbox.fetch);
    const client = new PixUsdt({ apiKey: sandbox.apiKey, baseUrl: 'https://sandbox.test', fetch: recorder, maxRetries: 0 });
    await client.users.list({ limit: 2 });
    const replay = replayFetch(recorder.cassette);
    await expect(replay('https://sandbox.test/v1/users?limit=3')).rejects.toThrow(new UnrecordedRequestError('Unrecorded request GET /v1/users?limit=3 (exchange 1 of 1): path /v1/users?limit=3, recorded /v1/users?limit=2.'));
    await replay('https://sandbox.test/v1/users?limit=2');
    await expect(replay('https://sandbox.test/v1/users?limit=2')).rejects.toThrow(/Unrecorded request GET \/v1\/users\?limit=2: the cassette's 1 exchanges are all used/);
    const again = replayFetch(recorder.cassette);
    expect(() => again.assertDone()).toThrow(/1 recorded exchanges were not replayed; next: GET \/v1\/users\?limit=2/);
  });

  it('the cassette of a whole conformance run holds no API key, webhook secret or CPF', async () => {
    const { sandbox, received } = sandboxWithReceiver({ seed: 'hygiene' });
    const raw = capture(sandbox.fetch);
    const recorder = recordingFetch(raw.fetch);
    const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: recorder, receiverUrl: 'https://receiver.test/h', received: () => received });
    expect(report.ok).toBe(true);
    // A key rotation puts a new secret in an answer body.
    const client = new PixUsdt({ apiKey: sandbox.apiKey, baseUrl: 'https://sandbox.test', fetch: recorder, maxRetries: 0 });
    const keys = await client.apiKeys.list();
    const rotated = await client.apiKeys.rotate((keys.data[0] as { id: string }).id);
    const traffic = [...raw.requests, ...raw.answers].join('\n');
    const secrets = [sandbox.apiKey, rotated.api_key, ...(traffic.match(/whsec_[A-Za-z0-9]+/g) ?? [])];
    expect(secrets.length).toBeGreaterThan(2);
    const cpfs = [...new Set((traffic.match(/(?<![\d.])\d{3}\.?\d{3}\.?\d{3}-?\d{2}(?!\d)/g) ?? []).map((c) => c.replace(/\D/g, '')).filter(isCpf))];
    expect(cpfs.length).toBeGreaterThan(5);
    const saved = recorder.serialize();
    expect(leaks('cassette', saved, secrets)).toEqual([]);
    const formatted = (c: string): string => `${c.slice(0, 3)}.${c.slice(3, 6)}.${c.slice(6, 9)}-${c.slice(9)}`;
    expect(cpfs.filter((c) => saved.includes(c) || saved.includes(formatted(c)))).toEqual([]);
    expect(saved).toMatch(/"authorization": "Bearer sk_test_\[redacted:\d+\]"/);
    expect(saved).toContain('[cpf:1]');
  });
});

describe('diffCassette', () => {
  async function recordRun(): Promise<Cassette> {
    const sandbox = createSandbox({ seed: 'diff' });
    const recorder = recordingFetch(sandbox.fetch);
    const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: recorder, runId: 'diff-run' });
    expect(report.ok).toBe(true);
    return recorder.cassette;
  }

  it('a conformance run recorded on one sandbox agrees with a fresh sandbox, exchange by exchange', async () => {
    const cassette = await recordRun();
    const diff = await diffCassette(cassette, createSandbox());
    expect(diff.exchanges.filter((e) => e.differences.length > 0)).toEqual([]);
    expect(diff.exchanges.length).toBe(cassette.exchanges.length);
    expect(diff.ok).toBe(true);
  });

  it('a sandbox that changes one code differs on exactly that answer', async () => {
    const cassette = await recordRun();
    const wrong = createSandbox();
    breakDuplicateCpf(wrong);
    const diff = await diffCassette(JSON.stringify(cassette), wrong.fetch, { apiKey: wrong.apiKey });
    expect(diff.ok).toBe(false);
    expect(diff.exchanges.filter((e) => e.differences.length > 0)).toEqual([
      { index: expect.any(Number), request: 'POST /v1/users', differences: [{ path: 'body.code', expected: '"duplicate_cpf"', observed: '"duplicate_document"' }] },
    ]);
  });
});
