/**
 * `conformance`: checks any deployment of the API against the reference (pix-usdt/parity; the
 * runner is run/conformance.ts). `--url` names the deployment as for every other command;
 * `--base-url`, its older name, is kept as an alias.
 * @module
 */
import { type Command, Option } from 'commander';
import type { CommandSpec } from './spec.js';
import { UsageError, parseHttpUrl } from './usage.js';

/** Options of `conformance`. */
export interface ConformanceOptions {
  /** The API's base URL, as given. */
  url: string;
  apiKey: string;
  /** An HTTPS URL that receives webhooks (enables the webhook scenario). */
  receiverUrl: string | undefined;
  /** Listen on 127.0.0.1:PORT for what `receiverUrl` forwards. */
  receiverPort: number | undefined;
  /** Only these scenarios, or areas with a trailing dot; `undefined`: all. */
  scenarios: string[] | undefined;
  /** Also exhaust the quote limit to observe the 429. */
  rateLimit: boolean;
  /** Pace requests (false: a local sandbox only). */
  pacing: boolean;
  /** The report as JSON instead of the table. */
  json: boolean;
  /** Also write the report as JUnit XML to this file. */
  junit: string | undefined;
  /** Also write the run's traffic to this file as a cassette. */
  record: string | undefined;
  /** `own`: a tenant made for the run where the deployment can make one (default); `key`: the API key's. */
  tenant: 'own' | 'key';
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export const conformance: CommandSpec<'conformance', ConformanceOptions> = {
  kind: 'conformance',
  synopsis: 'conformance --url URL --api-key KEY [--scenario ID] [--receiver-url URL --receiver-port PORT] [--junit FILE] [--record FILE] [--key-tenant]',
  define(program: Command): Command {
    return program
      .command('conformance')
      .summary('check any deployment of the API against the reference (pix-usdt/parity)')
      .description(`Runs the conformance scenarios of pix-usdt/parity against any deployment of the API (the
platform's sandbox, or this package's sandbox server) and reports where its answers differ
from what the API reference promises: the table (or --json) on stdout, progress on stderr.
Refuses sk_live_ keys.

What it touches: it first asks the deployment for a tenant of its own (POST
/v1/test_helpers/tenants with --api-key), and runs there: about a dozen users, their quotes
and conversions, and a webhook endpoint (with --receiver-url) of that tenant; the tenant of
--api-key is not touched, its webhook endpoints get no delivery. The report names the tenant.
A deployment that cannot make tenants (the platform's sandbox, a key without sandbox:control), or
--key-tenant, runs it in the tenant of --api-key instead: there it adds its users (external ids
prefixed with the run id), conversions and webhook endpoints, its events reach that tenant's
webhook endpoints, and it changes nothing it did not create.

Exit codes: 0 every promise of the reference holds (findings may remain), 1 a promise differs
or a scenario could not finish, 2 a usage error (nothing was sent). See docs/parity.md.`)
      .addOption(new Option('--url <URL>', "the API's base URL").env('PIX_USDT_SANDBOX_URL'))
      .addOption(new Option('--base-url <URL>', 'the same as --url (its older name, kept)'))
      .addOption(new Option('--api-key <KEY>', 'a sk_test_ key of that deployment').env('PIX_USDT_API_KEY'))
      .option('--receiver-url <URL>', 'an HTTPS URL that receives webhooks (enables the webhook scenario)')
      .option('--receiver-port <PORT>', 'listen on 127.0.0.1:PORT for what --receiver-url forwards (a tunnel), so that signatures and the event sequence are checked')
      .option('--scenario <ID>', 'run only this scenario, or an area with a trailing dot (repeatable)', collect, [])
      .option('--rate-limit', 'also exhaust the quote limit to observe the 429 (runs last)')
      .option('--no-pacing', 'do not pace requests (a local sandbox only)')
      .option('--json', 'print the report as JSON instead of the table')
      .option('--junit <FILE>', 'also write the report as JUnit XML to FILE')
      .option('--record <FILE>', 'also write the run\'s traffic to FILE as a cassette (keys, secrets and CPFs redacted), for replayFetch and diffCassette')
      .option('--key-tenant', 'run in the tenant of --api-key (its data, webhook endpoints and clock) instead of a tenant made for the run');
  },
  parse(values) {
    // An empty variable counts as unset; the flag beats the variable.
    const given = (name: string): string | undefined => {
      const value = values[name];
      return typeof value === 'string' && value !== '' ? value : undefined;
    };
    const url = given('baseUrl') ?? given('url');
    const apiKey = given('apiKey');
    if (url === undefined || apiKey === undefined) throw new UsageError('--url and --api-key are required (or PIX_USDT_SANDBOX_URL and PIX_USDT_API_KEY).');
    parseHttpUrl(url, '--url');
    const receiverUrl = given('receiverUrl');
    const rawPort = given('receiverPort');
    let receiverPort: number | undefined;
    if (rawPort !== undefined) {
      receiverPort = Number(rawPort);
      if (!/^\d{1,5}$/.test(rawPort) || receiverPort > 65_535 || receiverUrl === undefined) {
        throw new UsageError('--receiver-port takes a port (0-65535) and needs --receiver-url (the public URL that forwards to it).');
      }
    }
    const scenarios = values['scenario'] as string[];
    return {
      url,
      apiKey,
      receiverUrl,
      receiverPort,
      scenarios: scenarios.length === 0 ? undefined : scenarios,
      rateLimit: values['rateLimit'] === true,
      pacing: values['pacing'] !== false,
      json: values['json'] === true,
      junit: given('junit'),
      record: given('record'),
      tenant: values['keyTenant'] === true ? 'key' : 'own',
    };
  },
};
