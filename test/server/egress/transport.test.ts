/**
 * The webhook transport of the server: real HTTPS POSTs to a local receiver.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { createSandbox } from '../../../src/sandbox/index.js';
import { cpf } from '../../support/fixtures.js';
import type { LookupAddress, lookup as dnsLookup } from 'node:dns';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { DeliveryPolicy, DeliveryRefusedError, embeddedIPv4, ipv6Bytes, parseAllowEntry } from '../../../src/server/egress/destinations.js';
import { createHttpsTransport } from '../../../src/server/egress/transport.js';
import { generateSelfSigned } from '../../../src/server/http/tls.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let tls: { cert: string; key: string };
const servers: http.Server[] = [];

beforeAll(async () => {
  tls = await generateSelfSigned('localhost');
});

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/** A receiver that records what it gets and answers with `reply`. */
async function receiver(secure: boolean, reply: (req: Received, res: http.ServerResponse) => void): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      received.push(r);
      reply(r, res);
    });
  };
  const server = secure ? https.createServer(tls, listener) : http.createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `${secure ? 'https' : 'http'}://127.0.0.1:${port}/hooks?x=1`, received };
}

/** A `dns.lookup` stand-in: every name resolves to `addresses`; `calls` counts the resolutions. */
function resolvingTo(...addresses: string[]): typeof dnsLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = (hostname: string, options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void): void => {
    calls.push(hostname);
    expect((options as { all?: boolean }).all).toBe(true);
    queueMicrotask(() => callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))));
  };
  return Object.assign(lookup, { calls }) as never;
}

const DELIVERY = {
  headers: { 'x-service-event-id': 'evt_1', 'x-service-signature': 't=1,v1=abc' },
  body: JSON.stringify({ id: 'evt_1', type: 'user.created', created_at: '2026-01-01T00:00:00.000Z', data: { object: { id: 'u1' } } }),
};

describe('createHttpsTransport', () => {
  it('POSTs the exact body and headers over HTTPS and returns the status and body', async () => {
    const { url, received } = await receiver(true, (_r, res) => res.writeHead(202, { 'content-type': 'text/plain' }).end('thanks'));
    const transport = createHttpsTransport({ insecure: true });
    const reply = await transport({ url, ...DELIVERY });
    expect(reply).toEqual({ status: 202, body: 'thanks' });
    expect(received).toHaveLength(1);
    const [r] = received as [Received];
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/hooks?x=1');
    expect(r.body).toBe(DELIVERY.body);
    expect(r.headers['x-service-event-id']).toBe('evt_1');
    expect(r.headers['x-service-signature']).toBe('t=1,v1=abc');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(DELIVERY.body)));
  });

  it('a 5xx is an answer, not a transport error', async () => {
    const { url } = await receiver(true, (_r, res) => res.writeHead(503).end('down'));
    await expect(createHttpsTransport({ insecure: true })({ url, ...DELIVERY })).resolves.toEqual({ status: 503, body: 'down' });
  });

  it('refuses a self-signed certificate of a receiver that is not a loopback host, unless insecure', async () => {
    const { url, received } = await receiver(true, (_r, res) => res.end('ok'));
    // receiver.test is not a loopback host name, although it resolves (here) to the local receiver.
    const named = url.replace('127.0.0.1', 'receiver.test');
    const lookup = resolvingTo('127.0.0.1');
    await expect(createHttpsTransport({ lookup })({ url: named, ...DELIVERY })).rejects.toThrow(/Webhook attempt failed: .*SELF_SIGNED/);
    expect(received).toHaveLength(0);
    await expect(createHttpsTransport({ lookup, insecure: true })({ url: named, ...DELIVERY })).resolves.toEqual({ status: 200, body: 'ok' });
    expect(received).toHaveLength(1);
  });

  it('rejects when the receiver does not answer in time', async () => {
    const { url } = await receiver(true, () => undefined /* never answers */);
    await expect(createHttpsTransport({ insecure: true, timeoutMs: 300 })({ url, ...DELIVERY })).rejects.toThrow(/timed out after 300 ms/);
  });

  it('rejects a refused connection', async () => {
    const { url } = await receiver(true, (_r, res) => res.end());
    const closed = servers.pop() as http.Server;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(createHttpsTransport({ insecure: true })({ url, ...DELIVERY })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('keeps at most maxResponseBytes of the answer', async () => {
    const { url } = await receiver(true, (_r, res) => res.end('x'.repeat(10_000)));
    const reply = await createHttpsTransport({ insecure: true, maxResponseBytes: 100 })({ url, ...DELIVERY });
    expect(reply.body).toBe('x'.repeat(100));
  });

  it('a receiver answering 200 with 100 MB: reading stops at the cap, the connection is dropped, the delivery is recorded by its status', async () => {
    const TOTAL = 100 * 1024 * 1024;
    let written = 0;
    let finished = false;
    const closed = new Promise<void>((resolve) => {
      void receiver(false, (_r, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(TOTAL) });
        const chunk = Buffer.alloc(64 * 1024, 'y');
        const pump = (): void => {
          // Write until the socket pushes back, then wait for it to drain (or to close).
          while (!res.destroyed && written < TOTAL) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (written >= TOTAL) res.end(() => (finished = true));
        };
        res.once('close', () => resolve());
        pump();
      }).then(({ url }) => (target.url = url));
    });
    const target = { url: '' };
    await vi.waitFor(() => expect(target.url).not.toBe(''));
    // Through a sandbox: the delivery record is what a partner reads.
    const sandbox = createSandbox({ seed: 'big-answer', now: '2026-11-21T12:00:00Z', webhookTransport: createHttpsTransport({ maxResponseBytes: 4096 }) });
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
    const endpoint = await client.webhookEndpoints.create({ url: target.url, event_types: ['user.kyc_pending'] });
    await client.users.create({ external_id: 'big', name: 'Big Answer', document_type: 'cpf', document_number: cpf(7) });
    await sandbox.webhooks.flush();
    const [delivery] = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 1, response_status: 200, last_error: null });
    await closed;
    expect(finished).toBe(false);
    // What the socket buffers took before the drop: a few MB at most, never the 100 MB.
    expect(written).toBeLessThan(16 * 1024 * 1024);
  });

  it('plain http only to loopback receivers (by name and by the address it resolves to)', async () => {
    const { url, received } = await receiver(false, (_r, res) => res.end('plain'));
    await expect(createHttpsTransport()({ url, ...DELIVERY })).resolves.toEqual({ status: 200, body: 'plain' });
    expect(received).toHaveLength(1);
    await expect(createHttpsTransport()({ url: 'http://example.com/hooks', ...DELIVERY })).rejects.toThrow(/https only/);
    await expect(createHttpsTransport()({ url: 'ftp://127.0.0.1/hooks', ...DELIVERY })).rejects.toThrow(/https only/);
    await expect(createHttpsTransport()({ url: 'not a url', ...DELIVERY })).rejects.toThrow(/Invalid webhook URL/);
    // localhost that resolves elsewhere is not a loopback receiver.
    const elsewhere = createHttpsTransport({ lookup: resolvingTo('10.0.0.1'), allow: ['10.0.0.0/8'] });
    await expect(elsewhere({ url: 'http://localhost:9/hooks', ...DELIVERY })).rejects.toThrow(/plain http to 10\.0\.0\.1: not a loopback address/);
  });

  it('errors never carry the signature header', async () => {
    const error = await createHttpsTransport({ insecure: true })({ url: 'https://127.0.0.1:1/x', ...DELIVERY }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).not.toContain('v1=abc');
  });
});

describe('where deliveries may go', () => {
  it('sandbox environment: loopback receivers work out of the box, over http or self-signed https', async () => {
    const secure = await receiver(true, (_r, res) => res.end('tls'));
    const plain = await receiver(false, (_r, res) => res.end('plain'));
    const transport = createHttpsTransport();
    await expect(transport({ url: secure.url, ...DELIVERY })).resolves.toEqual({ status: 200, body: 'tls' });
    await expect(transport({ url: secure.url.replace('127.0.0.1', 'localhost'), ...DELIVERY })).resolves.toEqual({ status: 200, body: 'tls' });
    await expect(transport({ url: plain.url, ...DELIVERY })).resolves.toEqual({ status: 200, body: 'plain' });
    expect(secure.received).toHaveLength(2);
    expect(plain.received).toHaveLength(1);
  });

  it.each([
    ['10.0.0.1', /10\.0\.0\.1 \(private address\)/],
    ['172.20.1.1', /private address/],
    ['192.168.1.10', /private address/],
    ['169.254.169.254', /link-local or metadata address/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['0.0.0.0', /this-network address/],
    ['224.0.0.1', /multicast/],
    ['fd00::1', /unique-local/],
    ['fe80::1', /link-local address/],
    ['::ffff:10.0.0.1', /private address/],
    ['::', /unspecified/],
  ])('a name resolving to %s is refused before any connection', async (address, reason) => {
    const lookup = resolvingTo(address);
    const error = await createHttpsTransport({ lookup })({ url: 'https://receiver.test/hooks', ...DELIVERY }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryRefusedError);
    expect((error as Error).message).toMatch(reason);
    expect((error as Error).message).toMatch(/--webhook-allow/);
    expect(lookup.calls).toEqual(['receiver.test']);
  });

  it.each(['https://10.0.0.1/hooks', 'https://169.254.169.254/latest/meta-data', 'https://[fd00::1]:8443/hooks', 'https://[::ffff:192.168.0.1]/'])(
    'an address in the URL (%s) is checked without a lookup',
    async (url) => {
      const lookup = resolvingTo('127.0.0.1');
      await expect(createHttpsTransport({ lookup })({ url, ...DELIVERY })).rejects.toThrow(DeliveryRefusedError);
      expect(lookup.calls).toEqual([]);
    },
  );

  it('a name is refused when any address it resolves to is internal; the connection uses the checked answer', async () => {
    const { url, received } = await receiver(true, (_r, res) => res.end('ok'));
    const named = url.replace('127.0.0.1', 'receiver.test');
    await expect(createHttpsTransport({ lookup: resolvingTo('127.0.0.1', '10.1.2.3'), insecure: true })({ url: named, ...DELIVERY })).rejects.toThrow(
      /10\.1\.2\.3 \(private address\)/,
    );
    expect(received).toHaveLength(0);
    // receiver.test exists in no DNS: reaching the receiver proves the connection used the resolution that was checked.
    const lookup = resolvingTo('127.0.0.1');
    await expect(createHttpsTransport({ lookup, insecure: true })({ url: named, ...DELIVERY })).resolves.toEqual({ status: 200, body: 'ok' });
    expect(lookup.calls).toEqual(['receiver.test']);
    expect(received).toHaveLength(1);
  });

  it('production: https only, and loopback is internal unless allowed', async () => {
    const { url, received } = await receiver(true, (_r, res) => res.end('ok'));
    const plain = await receiver(false, (_r, res) => res.end('plain'));
    const production = createHttpsTransport({ environment: 'production', insecure: true });
    await expect(production({ url: plain.url, ...DELIVERY })).rejects.toThrow(/Refused http: webhook URL: https only\./);
    await expect(production({ url, ...DELIVERY })).rejects.toThrow(/127\.0\.0\.1 \(loopback address\) in production/);
    expect(received).toHaveLength(0);
    expect(plain.received).toHaveLength(0);
    // Allowed by range: delivered, and the self-signed certificate is checked (no loopback exception in production).
    await expect(createHttpsTransport({ environment: 'production', allow: ['127.0.0.0/8'] })({ url, ...DELIVERY })).rejects.toThrow(/SELF_SIGNED/);
    await expect(createHttpsTransport({ environment: 'production', allow: ['127.0.0.1'], insecure: true })({ url, ...DELIVERY })).resolves.toEqual({ status: 200, body: 'ok' });
    // Allowed by host name, whatever it resolves to.
    const named = url.replace('127.0.0.1', 'receiver.test');
    const byName = createHttpsTransport({ environment: 'production', allow: ['Receiver.Test'], insecure: true, lookup: resolvingTo('127.0.0.1') });
    await expect(byName({ url: named, ...DELIVERY })).resolves.toEqual({ status: 200, body: 'ok' });
    expect(received).toHaveLength(2);
  });

  it('--webhook-allow entries: ranges, addresses and host names; anything else is refused with the reason', () => {
    expect(parseAllowEntry('10.0.0.0/8')).toEqual({ range: ['10.0.0.0', 8, 'ipv4'] });
    expect(parseAllowEntry('192.168.1.5')).toEqual({ range: ['192.168.1.5', 32, 'ipv4'] });
    expect(parseAllowEntry('[fd00::]/8')).toEqual({ range: ['fd00::', 8, 'ipv6'] });
    expect(parseAllowEntry('Hooks.Internal.')).toEqual({ host: 'hooks.internal' });
    expect(() => parseAllowEntry('10.0.0.0/33')).toThrow(/prefix length must be 0 to 32/);
    expect(() => parseAllowEntry('10.0.0.0/x')).toThrow(/prefix length/);
    expect(() => parseAllowEntry('http://x')).toThrow(/neither an address range/);
    expect(() => parseAllowEntry('')).toThrow(/neither an address range/);
  });
});

describe('IPv6 addresses that carry an IPv4 address get the IPv4 address\'s policy (issue 27)', () => {
  // Behind a NAT64 gateway, a 6to4 relay or a Teredo relay these reach the IPv4 address inside.
  it.each([
    ['64:ff9b::a9fe:a9fe', /\(NAT64 address carrying 169\.254\.169\.254, a link-local or metadata address\)/],
    ['64:ff9b::10.0.0.1', /\(NAT64 address carrying 10\.0\.0\.1, a private address\)/],
    ['64:ff9b:1::a9fe:a9fe', /\(local-use NAT64 \(\/96\) address carrying 169\.254\.169\.254, a link-local or metadata address\)/],
    ['64:ff9b:1:a9fe:a9:fe00::', /\(local-use NAT64 \(\/48\) address carrying 169\.254\.169\.254/],
    ['2002:a9fe:a9fe::1', /\(6to4 address carrying 169\.254\.169\.254, a link-local or metadata address\)/],
    ['2001:0:a00:1::1', /\(Teredo server address carrying 10\.0\.0\.1, a private address\)/],
    // The client is the last 32 bits, inverted: f5ff:fffe is 10.0.0.1.
    ['2001:0:808:808:8000:ffff:f5ff:fffe', /\(Teredo client address carrying 10\.0\.0\.1, a private address\)/],
    ['::a9fe:a9fe', /\(IPv4-compatible address carrying 169\.254\.169\.254, a link-local or metadata address\)/],
    ['::7f00:1', /\(IPv4-compatible address carrying 127\.0\.0\.1, a loopback address\)/],
    ['::ffff:0:c0a8:1', /\(IPv4-translated address carrying 192\.168\.0\.1, a private address\)/],
    ['2001:db9::5efe:a00:1', /\(ISATAP address carrying 10\.0\.0\.1, a private address\)/],
    ['64:ff9b::7f00:1', /\(NAT64 address carrying 127\.0\.0\.1, a loopback address\)/],
  ])('%s is refused with the reason, in the URL and as what a name resolves to', async (address, reason) => {
    const lookup = resolvingTo('127.0.0.1');
    const literal = await createHttpsTransport({ lookup })({ url: `https://[${address}]/hooks`, ...DELIVERY }).catch((e: unknown) => e);
    expect(literal).toBeInstanceOf(DeliveryRefusedError);
    expect((literal as Error).message).toMatch(reason);
    expect((literal as Error).message).toMatch(/allow it with --webhook-allow/);
    expect(lookup.calls).toEqual([]);
    const resolved = await createHttpsTransport({ lookup: resolvingTo(address) })({ url: 'https://receiver.test/hooks', ...DELIVERY }).catch((e: unknown) => e);
    expect(resolved).toBeInstanceOf(DeliveryRefusedError);
    expect((resolved as Error).message).toMatch(reason);
  });

  it('carrying a public IPv4 address is allowed, and --webhook-allow of the IPv4 range allows the carried form', () => {
    const policy = new DeliveryPolicy();
    const https = { secure: true, verify: true, host: 'receiver.test' };
    for (const address of ['64:ff9b::8.8.8.8', '64:ff9b:1::8.8.8.8', '2002:808:808::1', '2001:0:808:808:8000:ffff:f7f7:f7f7', '2001:4860:4860::8888']) {
      expect(policy.refusal(https, address), address).toBeNull();
    }
    // The deprecated IPv4-compatible form stays refused even when the address inside is public.
    expect(policy.refusal(https, '::808:808')).toMatch(/deprecated IPv4-compatible address/);
    const allowing = new DeliveryPolicy({ allow: ['10.0.0.0/8', '169.254.169.254'] });
    expect(allowing.refusal(https, '64:ff9b::10.0.0.1')).toBeNull();
    expect(allowing.refusal(https, '2002:a9fe:a9fe::1')).toBeNull();
    expect(allowing.refusal(https, '2002:c0a8:1::1')).toMatch(/6to4 address carrying 192\.168\.0\.1/);
    // Plain http goes to this machine's loopback only: a carried 127.0.0.1 is another machine's.
    expect(policy.refusal({ secure: false, verify: false, host: 'localhost' }, '64:ff9b::7f00:1')).toMatch(/plain http .* not a loopback address/);
  });

  it('decodes what each form carries, and nothing from other addresses', () => {
    expect(embeddedIPv4('64:ff9b::a9fe:a9fe')).toEqual([{ ipv4: '169.254.169.254', form: 'NAT64' }]);
    expect(embeddedIPv4('[2002:a9fe:a9fe::1]')).toEqual([{ ipv4: '169.254.169.254', form: '6to4' }]);
    expect(embeddedIPv4('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toEqual([
      { ipv4: '65.54.227.120', form: 'Teredo server' },
      { ipv4: '192.0.2.45', form: 'Teredo client' }, // RFC 4380's own example
    ]);
    // Every RFC 6052 layout the address fits (/48, /56, /64, /96) is checked.
    expect(embeddedIPv4('64:ff9b:1:a9fe:a9:fe00::').map((e) => e.ipv4)).toEqual(['169.254.169.254', '254.169.254.0', '169.254.0.0', '0.0.0.0']);
    expect(embeddedIPv4('fe80::1%eth0')).toEqual([]);
    expect(embeddedIPv4('2001:4860:4860::8888')).toEqual([]);
    expect(embeddedIPv4('::ffff:10.0.0.1')).toEqual([]); // mapped: checked as the IPv4 address itself
    expect(embeddedIPv4('10.0.0.1')).toEqual([]);
  });

  it('reads IPv6 text into the same 16 bytes as ipaddr.js, for any address', () => {
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const ours = Array.from(ipv6Bytes(address) ?? []);
        const theirs = ipaddr.IPv6.parse(address).toByteArray();
        // The one difference: ipaddr.js reads the deprecated `::a.b.c.d` as `::ffff:a.b.c.d`; the
        // socket (and RFC 4291) connects to the IPv4-compatible address, bytes 10-11 zero.
        if (/^::\d+\.\d+\.\d+\.\d+$/.test(address)) theirs.splice(10, 2, 0, 0);
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 2000 },
    );
  });
});
