/** Sandboxes and receivers the parity tests run conformance against. */
import { createSandbox, type Sandbox } from 'pix-usdt/sandbox';
import type { ReceivedWebhook } from 'pix-usdt/parity';

/** A sandbox whose webhook deliveries land in `received` (answered 200). */
export function sandboxWithReceiver(options: Parameters<typeof createSandbox>[0] = {}): { sandbox: Sandbox; received: ReceivedWebhook[] } {
  const received: ReceivedWebhook[] = [];
  const sandbox = createSandbox({
    ...options,
    webhookTransport: async (request) => {
      received.push({ headers: request.headers, body: request.body });
      return { status: 200, body: '' } as never;
    },
  });
  return { sandbox, received };
}

/** Makes the sandbox answer `duplicate_document` where it would answer `duplicate_cpf`: one wrong code. */
export function breakDuplicateCpf(sandbox: Sandbox): void {
  sandbox.use('wrong-duplicate-cpf', async (_call, next) => {
    const answer = await next();
    if (answer.body?.includes('"duplicate_cpf"')) return { ...answer, body: answer.body.replace('"duplicate_cpf"', '"duplicate_document"') };
    return answer;
  });
}

/** Runs the library quickly against a local sandbox: no pacing, short webhook wait. */
export const FAST = { pacing: false, webhookWaitMs: 5_000 } as const;
