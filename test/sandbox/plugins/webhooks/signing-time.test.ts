/**
 * Issue 13: deliveries are signed with the real time of sending, not the event's sandbox time,
 * so a receiver verifies at its default tolerance whatever the sandbox clock says (frozen in
 * the past, or advanced by days). A deterministic signing clock stays an explicit option.
 */
import { describe, expect, it } from 'vitest';
import { constructEvent, verifySignature } from '../../../../src/webhooks/index.js';
import { RECEIVER, setup } from './helpers.js';
import { approvedUser, onrampBody } from '../../../support/fixtures.js';

describe('the signature timestamp', () => {
  it('is the real time of sending: a receiver at the default tolerance accepts every delivery, before and after a 7-day advance', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    const verified: string[] = [];
    const rejected: string[] = [];
    sandbox.webhooks.listen(RECEIVER, async (request) => {
      const body = await request.text();
      try {
        // Defaults: now = Date.now(), tolerance 300 s.
        const event = await constructEvent(body, Object.fromEntries(request.headers), endpoint.secret);
        verified.push(event.type);
        return 204;
      } catch (error) {
        rejected.push(String(error));
        return 400;
      }
    });
    const userId = await approvedUser(client, 1);
    const quote = await client.quotes.create(onrampBody(userId));
    const conversion = await client.quotes.accept(quote.id);
    await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { amount: '1.00' });
    await sandbox.webhooks.flush();
    // Seven days later, sandbox time: the standby conversion is abandoned.
    await sandbox.clock.advance({ days: 7, seconds: 1 });
    await sandbox.webhooks.flush();
    expect(rejected).toEqual([]);
    expect(verified).toContain('user.kyc_approved');
    expect(verified).toContain('conversion.abandoned');
    expect(verified).toEqual(sandbox.events().map((e) => e.type));
  });

  it('the event keeps its sandbox time in created_at; the signature carries the time of sending', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    sandbox.webhooks.listen(RECEIVER, () => 204);
    await sandbox.clock.advance({ days: 30 });
    await approvedUser(client, 2);
    await sandbox.webhooks.flush();
    const [delivered] = sandbox.webhooks.delivered();
    const signature = new Headers(delivered?.headers).get('x-service-signature') as string;
    const t = await verifySignature(delivered?.body as string, signature, endpoint.secret);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(60);
    expect(delivered?.event.created_at).toBe(sandbox.clock.now().toISOString());
  });

  it('a signingClock option makes the signature deterministic (snapshot tests)', async () => {
    const fixed = Date.parse('2030-05-06T07:08:09Z');
    const run = async (): Promise<string> => {
      const { sandbox, client } = setup({ webhooks: { signingClock: () => fixed } });
      const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
      let now: Date | undefined;
      sandbox.webhooks.listen(RECEIVER, (_request, context) => {
        now = context.now;
      });
      await approvedUser(client, 3);
      await sandbox.webhooks.flush();
      expect(now?.getTime()).toBe(fixed);
      const [delivered] = sandbox.webhooks.delivered();
      const signature = new Headers(delivered?.headers).get('x-service-signature') as string;
      expect(await verifySignature(delivered?.body as string, signature, endpoint.secret, { now: new Date(fixed) })).toBe(fixed / 1000);
      return signature;
    };
    expect(await run()).toBe(await run());
  });
});
