/**
 * The options of every command that talks to a running server: where it is, the key, and
 * whether to print JSON.
 * @module
 */
import { type Command, Option } from 'commander';
import { API_KEY_FORMAT } from '../../models/index.js';
import { DEFAULT_URL, UsageError, parseHttpUrl } from './usage.js';

/** Where the server is and how to talk to it. */
export interface Connection {
  /** The server's origin, e.g. `http://127.0.0.1:4010`. */
  url: string;
  apiKey: string;
  /** JSON on stdout instead of text. */
  json: boolean;
}

/** Adds `--url`, `--api-key` and `--json` to `command`. */
export function withConnection(command: Command): Command {
  return command
    .addOption(new Option('--url <URL>', `the server (the "url" of serve's JSON line; default ${DEFAULT_URL})`).env('PIX_USDT_SANDBOX_URL'))
    .addOption(new Option('--api-key <KEY>', `an API key of the server (the "api_key" of serve's JSON line)`).env('PIX_USDT_API_KEY'))
    .option('--json', 'JSON on stdout instead of text, for scripts (the help of each command says its shape)');
}

/** The operator's key that `serve` prints as `control_key` (the whole request log feed; never a tenant's API key). */
export const CONTROL_KEY_FORMAT = /^sk_control_[A-Za-z0-9]{32}$/;

/** Reads the connection options; throws {@link UsageError} without a key. `control`: the control key is accepted too (`logs tail`). */
export function parseConnection(values: Record<string, unknown>, options: { control?: boolean } = {}): Connection {
  // An empty variable (`PIX_USDT_SANDBOX_URL=`) counts as unset.
  const raw = values['url'];
  const url = parseHttpUrl(typeof raw === 'string' && raw !== '' ? raw : DEFAULT_URL, '--url');
  const apiKey = values['apiKey'];
  if (typeof apiKey !== 'string' || apiKey === '') {
    throw new UsageError('An API key is needed: --api-key KEY or PIX_USDT_API_KEY (the "api_key" that serve prints).');
  }
  if (!API_KEY_FORMAT.test(apiKey) && !(options.control === true && CONTROL_KEY_FORMAT.test(apiKey))) {
    const control = options.control === true ? ', or the control key sk_control_ and 32 letters or digits' : '';
    throw new UsageError(`The API key is malformed: a key is sk_test_ or sk_live_ and 32 letters or digits${control} (the key is not shown).`);
  }
  return { url: url.origin, apiKey, json: values['json'] === true };
}
