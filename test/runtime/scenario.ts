// The end-to-end scenario every runtime of the matrix runs (scripts/runtimes.ts: Node 20/22/24,
// Bun, Deno, workerd, Chromium; test/browser/page.ts runs it too): pix-usdt, pix-usdt/sandbox and
// pix-usdt/webhooks as the runtime resolves the package, a conversion to completed through the
// client against the in-process sandbox, then a webhook signed and verified (and a tampered body
// refused). It returns what happened; the caller checks it (expectScenario), so that a runtime
// cannot pass by not running it.
import { PixUsdt } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';
import { constructEvent, signPayload } from 'pix-usdt/webhooks';

/** What the scenario observed. */
export interface ScenarioResult {
  statuses: string[];
  events: string[];
  verifiedType: string;
  tampered: string;
  hasProcess: boolean;
  hasBuffer: boolean;
}

export async function runScenario(): Promise<ScenarioResult> {
  const sandbox = createSandbox({ now: '2026-11-21T12:00:00Z' });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
  const user = await client.users.create({
    external_id: 'runtime-user',
    name: 'Runtime User',
    document_type: 'cpf',
    document_number: '529.982.247-25',
  });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create({
    user_id: user.id,
    source_currency: 'USDT',
    target_currency: 'BRL',
    source_amount: '25.00',
    pix_key: '00000000-0000-0000-0000-000000000001',
    pix_key_type: 'evp',
    deposit_network: 'polygon',
  });
  const accepted = await client.quotes.accept(quote.id);
  const completed = await client.testHelpers.conversions.simulateOfframpDeposit(accepted.id, { settle: true });

  const secret = 'whsec_runtime_test_secret_0123456789';
  const envelope = { id: 'evt_1', type: 'conversion.completed', created_at: '2026-11-21T12:00:00Z', data: { object: completed } };
  const raw = JSON.stringify(envelope);
  const timestamp = Math.floor(Date.parse('2026-11-21T12:00:00Z') / 1000);
  const signature = await signPayload(raw, secret, { timestamp });
  const headers = new Headers({ 'X-Service-Signature': signature, 'X-Service-Event-Id': 'evt_1' });
  const event = await constructEvent(raw, headers, secret, { now: new Date('2026-11-21T12:01:00Z') });
  let tampered = 'accepted';
  try {
    await constructEvent(raw.replace('completed', 'failed'), headers, secret, { now: new Date('2026-11-21T12:01:00Z') });
  } catch (error) {
    tampered = (error as { reason?: string }).reason ?? 'rejected';
  }
  return {
    statuses: [accepted.status, completed.status],
    events: sandbox.events().map((e) => e.type),
    verifiedType: event.type,
    tampered,
    hasProcess: typeof (globalThis as { process?: unknown }).process !== 'undefined',
    hasBuffer: typeof (globalThis as { Buffer?: unknown }).Buffer !== 'undefined',
  };
}

/** The problems with a scenario's result (none: it ran to the end as it should). */
export function scenarioProblems(result: unknown): string[] {
  const r = result as Partial<ScenarioResult> & { error?: string };
  if (r === null || typeof r !== 'object') return [`no result: ${String(result)}`];
  if (r.error) return [r.error];
  const problems: string[] = [];
  if (JSON.stringify(r.statuses) !== JSON.stringify(['awaiting_deposit', 'completed'])) problems.push(`statuses ${JSON.stringify(r.statuses)}`);
  for (const type of ['user.kyc_approved', 'conversion.created', 'conversion.completed']) {
    if (!r.events?.includes(type)) problems.push(`no ${type} event in ${JSON.stringify(r.events)}`);
  }
  if (r.verifiedType !== 'conversion.completed') problems.push(`verified ${String(r.verifiedType)}`);
  if (r.tampered !== 'no_matching_signature') problems.push(`a tampered body gave ${String(r.tampered)}`);
  return problems;
}
