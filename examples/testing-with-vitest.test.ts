// Testing your integration in vitest with pix-usdt/testing: a sandbox per test (frozen clock, its
// own client), scenario builders and matchers. Guide: docs/testing.md.
// Run: npx vitest run examples/testing-with-vitest.test.ts
import { approvedUser, createConversion, createTestSandbox, matchers, quoteRequest } from 'pix-usdt/testing';
import { describe, expect, it } from 'vitest';

expect.extend(matchers); // in a real suite: once, in a setup file

describe('my offramp flow', () => {
  it('refuses to accept a quote after it expired', async () => {
    await using sandbox = createTestSandbox();
    const { user } = await approvedUser(sandbox.client);
    const quote = await sandbox.client.quotes.create(quoteRequest(user.id, { direction: 'offramp', amount: '10.00' }));

    await sandbox.clock.advance({ minutes: 6 });

    await expect(sandbox.client.quotes.accept(quote.id)).rejects.toBeApiError('quote_expired');
    expect((await sandbox.client.quotes.retrieve(quote.id)).status).toBe('expired');
  });

  it('sees an unpaid conversion expire when the deposit window closes', async () => {
    await using sandbox = createTestSandbox();
    const { conversion } = await createConversion(sandbox.client, { status: 'awaiting_deposit', direction: 'offramp' });

    await sandbox.clock.advance({ minutes: 15 });

    expect(await sandbox.client.conversions.retrieve(conversion.id)).toHaveConversionStatus('expired');
    expect(sandbox).toHaveEmittedEvent('conversion.expired', { objectId: conversion.id });
  });
});
