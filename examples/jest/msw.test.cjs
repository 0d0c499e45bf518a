// msw under Jest (CommonJS): setupServer from msw/node answers the code under test from a
// sandbox. Needs the transform of jest.config.cjs (docs/testing.md, "Jest and msw").
const { setupServer } = require('msw/node');
const { PixUsdt } = require('pix-usdt');
const { createSandbox } = require('pix-usdt/sandbox');
const { createSandboxHandlers } = require('pix-usdt/sandbox/msw');
const { createConversion, matchers } = require('pix-usdt/testing');

expect.extend(matchers);

const sandbox = createSandbox({ now: '2026-11-21T12:00:00Z' });
const server = setupServer(...createSandboxHandlers(sandbox));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => sandbox.reset());
afterAll(async () => {
  server.close();
  await sandbox.close?.();
});

test('the client with no fetch option reaches the sandbox through msw', async () => {
  // What the code under test does: the default base URL of an sk_test_ key, the global fetch.
  const client = new PixUsdt({ apiKey: sandbox.apiKey });
  const { conversion } = await createConversion(client, { status: 'completed', direction: 'offramp' });
  expect(conversion).toHaveConversionStatus('completed');
  expect(sandbox).toHaveEmittedEvent('conversion.completed', { objectId: conversion.id });
});

test('an unknown conversion answers conversion_not_found', async () => {
  const client = new PixUsdt({ apiKey: sandbox.apiKey, maxRetries: 0 });
  await expect(client.conversions.retrieve('00000000-0000-4000-8000-000000000000')).rejects.toBeApiError('conversion_not_found');
});
