// Testing your integration in Jest (CommonJS, no configuration needed for the kit) with
// pix-usdt/testing: a sandbox per test, scenario builders, matchers. Guide: docs/testing.md.
// Run: npx jest --config examples/jest/jest.config.cjs
const { approvedUser, createConversion, createTestSandbox, matchers, quoteRequest } = require('pix-usdt/testing');

expect.extend(matchers); // in a real suite: once, in a setupFilesAfterEnv file

let sandbox;
beforeEach(() => {
  sandbox = createTestSandbox();
});
afterEach(() => sandbox.close());

describe('my offramp flow', () => {
  test('refuses to accept a quote after it expired', async () => {
    const { user } = await approvedUser(sandbox.client);
    const quote = await sandbox.client.quotes.create(quoteRequest(user.id, { direction: 'offramp', amount: '10.00' }));

    await sandbox.clock.advance({ minutes: 6 });

    await expect(sandbox.client.quotes.accept(quote.id)).rejects.toBeApiError('quote_expired');
    expect((await sandbox.client.quotes.retrieve(quote.id)).status).toBe('expired');
  });

  test('sees an unpaid conversion expire when the deposit window closes', async () => {
    const { conversion } = await createConversion(sandbox.client, { status: 'awaiting_deposit', direction: 'offramp' });

    await sandbox.clock.advance({ minutes: 15 });

    expect(await sandbox.client.conversions.retrieve(conversion.id)).toHaveConversionStatus('expired');
    expect(sandbox).toHaveEmittedEvent('conversion.expired', { objectId: conversion.id });
  });

  test('receives signed webhooks for a standby conversion', async () => {
    const received = [];
    sandbox.webhooks.listen('https://shop.test/webhooks', (request) => void received.push(request));
    const endpoint = await sandbox.client.webhookEndpoints.create({ url: 'https://shop.test/webhooks', event_types: ['conversion.created', 'conversion.standby'] });

    const { conversion } = await createConversion(sandbox.client, { status: 'standby', reason: 'over_funded' });
    await sandbox.webhooks.flush();

    expect(conversion).toHaveConversionStatus('standby', 'over_funded');
    expect(received.length).toBe(2);
    for (const request of received) await expect(request).toVerifyWithSecret(endpoint.secret);
  });
});

describe('what a failing matcher prints under Jest', () => {
  test('says what was there instead', async () => {
    const { conversion } = await createConversion(sandbox.client, { status: 'canceled' });
    expect(() => expect(conversion).toHaveConversionStatus('completed')).toThrow(`expected conversion ${conversion.id} to be completed, but it is canceled`);
    expect(() => expect(sandbox).toHaveEmittedEvent('conversion.completed')).toThrow(/^expected an event conversion\.completed; got 4 events: user\.kyc_pending/);
    expect(() => expect(new TypeError('boom')).toBeApiError('quote_expired')).toThrow('expected the API error quote_expired, got TypeError: boom');
    await expect(expect({ body: '{}', headers: {} }).toVerifyWithSecret('whsec_0123456789abcdefghij')).rejects.toThrow(
      'expected the webhook request to verify with whsec_...ghij, but it does not (missing_header: ',
    );
  });
});
