// Every example runs here, as a partner would run it, so none can rot.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

async function example(file: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: root, timeout: 60_000 });
  return stdout;
}

describe('examples', () => {
  it('the demo (npm start): every event is delivered, signed and verified by the receiver', async () => {
    const out = await example('examples/demo.ts');
    const summary = /(\d+) events recorded, (\d+) deliveries verified/.exec(out);
    expect(summary).not.toBeNull();
    expect(Number(summary![1])).toBeGreaterThanOrEqual(9);
    expect(summary![2]).toBe(summary![1]);
    expect(out).not.toContain('webhook ✗');
    for (const step of ['KYC reviewed', 'Pix paid and settled', 'standby (under_funded)', 'liquidated at the new price', 'Pix payout settled']) {
      expect(out).toContain(step);
    }
  });

  it('onramp: the conversion completes and the wallet is credited', async () => {
    const out = await example('examples/onramp.ts');
    expect(out).toMatch(/conversion completed; wallet [1-9]\d*\.\d+ USDT/);
  });

  it('offramp: the exact deposit completes the conversion', async () => {
    const out = await example('examples/offramp.ts');
    expect(out).toMatch(/paid to .+\(Sandbox\)/);
    expect(out).toMatch(/conversion completed at \d{4}-/);
  });

  it('standby and liquidation: liquidated, then abandoned after 7 days', async () => {
    const out = await example('examples/standby-liquidation.ts');
    expect(out).toMatch(/standby \(under_funded\), 150\.0+ of 200\.0+ USDT/);
    expect(out).toMatch(/sweep found [0-9a-f-]{36} in standby/);
    expect(out).toMatch(/status liquidated/);
    expect(out).toMatch(/: abandoned/);
    expect(out).toContain('liquidate refused: invalid_transaction_state');
  });

  it('webhook receiver: real HTTP deliveries verify, a forged one is refused', async () => {
    const out = await example('examples/webhook-receiver.ts');
    expect(out).toMatch(/received user\.kyc_pending [0-9a-f-]{36}: verified/);
    expect(out).toMatch(/received user\.kyc_approved [0-9a-f-]{36}: verified/);
    expect(out).toContain('forged delivery answered 400');
    expect(out).toMatch(/deliveries: (user\.kyc_\w+=succeeded(, )?){2}$/m);
  });

  it('the sandbox server used from curl (the built binary), writing only in a temporary folder of its own, removed', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'pix-usdt-curl-'));
    let stdout: string;
    try {
      ({ stdout } = await run('bash', ['examples/sandbox-server-curl.sh'], { cwd: root, timeout: 60_000, env: { ...process.env, TMPDIR: scratch } }));
      // Its scratch file lived under $TMPDIR and left with it; nothing is written at a fixed /tmp path.
      expect(readdirSync(scratch)).toEqual([]);
      expect(readFileSync(join(root, 'examples/sandbox-server-curl.sh'), 'utf8')).not.toMatch(/\/tmp\//);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    expect(stdout).toMatch(/sandbox listening at http:\/\/127\.0\.0\.1:\d+/);
    expect(stdout.match(/HTTP\/1\.1 201 Created/g)).toHaveLength(2);
    expect(stdout).toContain('idempotent-replayed: true');
    expect(stdout).toMatch(/user [0-9a-f-]{36} kyc=pending document=\*\*\*\.982\.247-\*\*/);
    expect(stdout).toMatch(/"code":"validation_error".*"request_id":"req_/);
    expect(stdout).toMatch(/"code":"invalid_api_key_format"/);
  });
});
