/**
 * Where the server's webhook deliveries may go. A server that listens beyond loopback must not
 * become a way into the network it sits in: deliveries to private, link-local, metadata and other
 * non-public addresses are refused unless `--webhook-allow` names them, and the address checked is
 * the one the connection uses (the check runs inside the socket's DNS lookup, so a name cannot
 * resolve to a public address for the check and a private one for the connection).
 *
 * An IPv6 address that carries an IPv4 address (NAT64, 6to4, Teredo, IPv4-compatible, IPv4-translated,
 * ISATAP) reaches that IPv4 address through a gateway or relay: the IPv4 address inside is
 * decoded ({@link embeddedIPv4}) and given the same policy as the IPv4 address itself.
 *
 * Schemes and certificates: in the sandbox environment a loopback receiver (`localhost`,
 * 127.0.0.0/8, `[::1]`) may be `http://` or `https://` with any certificate; everything else is
 * `https://` with a verified certificate (unless `--insecure-webhooks`). Production keeps the
 * reference's rule: `https://` only, and loopback is one more internal address.
 * @module
 */
import { type LookupAddress, lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { isLoopbackHost } from '../../client/options.js';

/** The sandbox's environment, as `--environment` gives it. */
export type DeliveryEnvironment = 'sandbox' | 'production';

/** A delivery the policy does not allow: recorded on the delivery as its `last_error`. */
export class DeliveryRefusedError extends Error {
  override readonly name = 'DeliveryRefusedError';
}

/** How to connect to a receiver the policy allows. */
export interface Destination {
  /** `https:` (else plain `http:` to a loopback receiver). */
  secure: boolean;
  /** Verify the receiver's certificate. */
  verify: boolean;
  /** The host name of the URL, without IPv6 brackets, lower case. */
  host: string;
}

/** Options of {@link DeliveryPolicy}. */
export interface DeliveryPolicyOptions {
  /** `sandbox` (default) allows loopback receivers over http or self-signed https. */
  environment?: DeliveryEnvironment;
  /** `--webhook-allow` entries: CIDR ranges, single addresses or host names allowed although internal. */
  allow?: readonly string[];
  /** Accept unverifiable certificates of any receiver (`--insecure-webhooks`). */
  insecure?: boolean;
}

type Range = readonly [address: string, prefix: number, family: 'ipv4' | 'ipv6'];

const LOOPBACK_RANGES: readonly Range[] = [
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
];

/** Addresses that are not a public receiver: RFC 6890 special-purpose ranges that route somewhere local. */
const INTERNAL_RANGES: ReadonlyArray<readonly [...Range, string]> = [
  ['0.0.0.0', 8, 'ipv4', 'this-network address'],
  ['10.0.0.0', 8, 'ipv4', 'private address'],
  ['100.64.0.0', 10, 'ipv4', 'shared (carrier-grade NAT) address'],
  ['169.254.0.0', 16, 'ipv4', 'link-local or metadata address'],
  ['172.16.0.0', 12, 'ipv4', 'private address'],
  ['192.0.0.0', 24, 'ipv4', 'protocol-assignment address'],
  ['192.0.2.0', 24, 'ipv4', 'documentation address'],
  ['192.168.0.0', 16, 'ipv4', 'private address'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking address'],
  ['198.51.100.0', 24, 'ipv4', 'documentation address'],
  ['203.0.113.0', 24, 'ipv4', 'documentation address'],
  ['224.0.0.0', 4, 'ipv4', 'multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'reserved or broadcast address'],
  ['::', 96, 'ipv6', 'unspecified or deprecated IPv4-compatible address'],
  ['100::', 64, 'ipv6', 'discard address'],
  ['2001:db8::', 32, 'ipv6', 'documentation address'],
  ['fc00::', 7, 'ipv6', 'unique-local (private) address'],
  ['fe80::', 10, 'ipv6', 'link-local address'],
  ['fec0::', 10, 'ipv6', 'site-local address'],
  ['ff00::', 8, 'ipv6', 'multicast address'],
];

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/;

function unbracket(host: string): string {
  return host.replace(/^\[(.*)\]$/, '$1');
}

function familyOf(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

function rangeList(ranges: readonly Range[]): BlockList {
  const list = new BlockList();
  for (const [address, prefix, family] of ranges) list.addSubnet(address, prefix, family);
  return list;
}

/** An IPv4 address carried inside an IPv6 address, and the form that carries it. */
export interface EmbeddedIPv4 {
  /** Dotted quad. */
  ipv4: string;
  /** How it is carried, for messages: `NAT64`, `6to4`, `Teredo server`, ... */
  form: string;
}

/** The 16 bytes of an IPv6 address (any text form `net.isIP` accepts, a zone id dropped), or `null`. */
export function ipv6Bytes(address: string): Uint8Array | null {
  const text = unbracket(address).replace(/%.*$/, '');
  if (isIP(text) !== 6) return null;
  // The URL parser writes the canonical form: lower-case hex groups, `::` at most once, no dotted quad.
  const canonical = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

const quad = (b: ArrayLike<number>, invert = false): string => Array.from(b, (x) => (invert ? ~x & 0xff : x)).join('.');
const zero = (b: Uint8Array, from: number, to: number): boolean => b.subarray(from, to).every((x) => x === 0);

/**
 * The IPv4 addresses an IPv6 address carries (none for most): NAT64 `64:ff9b::/96` (RFC 6052)
 * and the local-use `64:ff9b:1::/48` (RFC 8215, every prefix length of RFC 6052 whose layout
 * the address fits: /48, /56, /64, /96), 6to4 `2002::/16`, Teredo `2001::/32` (the server,
 * bits 32-63, and the client, the last 32 bits inverted: both are reached through it),
 * IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d` (SIIT) and an ISATAP
 * interface identifier (`...:0:5efe:a.b.c.d`, `...:200:5efe:a.b.c.d`). IPv4-mapped
 * `::ffff:a.b.c.d` is not listed: the address checks already treat it as its IPv4 address.
 */
export function embeddedIPv4(address: string): EmbeddedIPv4[] {
  const b = ipv6Bytes(address);
  if (b === null) return [];
  const word = (i: number): number => ((b[i] as number) << 8) | (b[i + 1] as number);
  const last = b.subarray(12, 16);
  const found: EmbeddedIPv4[] = [];
  if (word(0) === 0x64 && word(2) === 0xff9b && zero(b, 4, 12)) found.push({ ipv4: quad(last), form: 'NAT64' });
  else if (word(0) === 0x64 && word(2) === 0xff9b && word(4) === 0x1 && b[8] === 0) {
    // RFC 6052 layouts inside the /48: the IPv4 bits around the zero octet 8, then a zero suffix.
    const layouts: Array<[prefix: number, ipv4: number[], suffixFrom: number]> = [
      [48, [6, 7, 9, 10], 11],
      [56, [7, 9, 10, 11], 12],
      [64, [9, 10, 11, 12], 13],
      [96, [12, 13, 14, 15], 16],
    ];
    for (const [prefix, at, suffixFrom] of layouts) {
      if (zero(b, suffixFrom, 16)) found.push({ ipv4: quad(at.map((i) => b[i] as number)), form: `local-use NAT64 (/${prefix})` });
    }
  } else if (word(0) === 0x2002) found.push({ ipv4: quad(b.subarray(2, 6)), form: '6to4' });
  else if (word(0) === 0x2001 && word(2) === 0) {
    found.push({ ipv4: quad(b.subarray(4, 8)), form: 'Teredo server' });
    found.push({ ipv4: quad(last, true), form: 'Teredo client' });
  } else if (zero(b, 0, 12) && !zero(b, 12, 15)) found.push({ ipv4: quad(last), form: 'IPv4-compatible' });
  else if (zero(b, 0, 8) && word(8) === 0xffff && word(10) === 0) found.push({ ipv4: quad(last), form: 'IPv4-translated' });
  if ((word(8) & 0xfdff) === 0 && word(10) === 0x5efe) found.push({ ipv4: quad(last), form: 'ISATAP' });
  return found;
}

/** One `--webhook-allow` entry, parsed: a range, or a host name. Throws a message on anything else. */
export function parseAllowEntry(entry: string): { range: Range } | { host: string } {
  const text = entry.trim();
  const slash = text.indexOf('/');
  const address = unbracket(slash === -1 ? text : text.slice(0, slash));
  const version = isIP(address);
  if (version !== 0) {
    const max = version === 4 ? 32 : 128;
    const prefixText = slash === -1 ? String(max) : text.slice(slash + 1);
    const prefix = Number(prefixText);
    if (!/^\d{1,3}$/.test(prefixText) || prefix > max) throw new Error(`${JSON.stringify(entry)}: the prefix length must be 0 to ${max}.`);
    return { range: [address, prefix, version === 4 ? 'ipv4' : 'ipv6'] };
  }
  const host = text.toLowerCase();
  if (slash !== -1 || !HOST_NAME.test(host)) throw new Error(`${JSON.stringify(entry)} is neither an address range (10.0.0.0/8, fd00::/8), an address nor a host name.`);
  return { host: host.replace(/\.$/, '') };
}

/** Decides whether a delivery URL, then each address it resolves to, may be used. */
export class DeliveryPolicy {
  readonly environment: DeliveryEnvironment;
  readonly #insecure: boolean;
  readonly #loopback = rangeList(LOOPBACK_RANGES);
  readonly #internal: ReadonlyArray<readonly [BlockList, string]>;
  readonly #allowed = new BlockList();
  readonly #allowedHosts = new Set<string>();

  constructor(options: DeliveryPolicyOptions = {}) {
    this.environment = options.environment ?? 'sandbox';
    this.#insecure = options.insecure === true;
    this.#internal = INTERNAL_RANGES.map(([address, prefix, family, what]) => [rangeList([[address, prefix, family]]), what] as const);
    for (const entry of options.allow ?? []) {
      const parsed = parseAllowEntry(entry);
      if ('host' in parsed) this.#allowedHosts.add(parsed.host);
      else this.#allowed.addSubnet(...parsed.range);
    }
  }

  /** The scheme and certificate rules. Throws {@link DeliveryRefusedError} for a URL never sent to. */
  destination(url: URL): Destination {
    const host = unbracket(url.hostname).toLowerCase();
    const loopback = this.environment === 'sandbox' && isLoopbackHost(url.hostname);
    if (url.protocol === 'https:') return { secure: true, verify: !(loopback || this.#insecure), host };
    if (url.protocol === 'http:' && loopback) return { secure: false, verify: false, host };
    const rule = this.environment === 'sandbox' ? 'https only (plain http for loopback receivers)' : 'https only';
    throw new DeliveryRefusedError(`Refused ${url.protocol} webhook URL: ${rule}.`);
  }

  /** Why `address` (what `host` resolved to) may not be connected to, or `null` when it may. */
  refusal(destination: Destination, address: string): string | null {
    const family = familyOf(address);
    const loopback = this.#loopback.check(address, family);
    // Plain http is for the machine itself, whatever the name resolved to.
    if (!destination.secure && !(loopback && this.environment === 'sandbox')) {
      return `Refused to deliver over plain http to ${address}: not a loopback address.`;
    }
    if (this.#allowedHosts.has(destination.host.replace(/\.$/, '')) || this.#allowed.check(address, family)) return null;
    if (loopback) {
      if (this.environment === 'sandbox') return null;
      return `Refused to deliver to ${address} (loopback address) in production: allow it with --webhook-allow.`;
    }
    // The IPv4 address a gateway or relay would reach gets the IPv4 address's own policy; its
    // loopback is another machine's (the gateway's), so it is internal here.
    for (const { ipv4, form } of family === 'ipv6' ? embeddedIPv4(address) : []) {
      if (this.#allowed.check(ipv4, 'ipv4')) continue;
      const what = this.#loopback.check(ipv4, 'ipv4') ? 'loopback address' : this.#internalReason(ipv4, 'ipv4');
      if (what !== null) return `Refused to deliver to ${address} (${form} address carrying ${ipv4}, a ${what}): allow it with --webhook-allow.`;
    }
    const what = this.#internalReason(address, family);
    return what === null ? null : `Refused to deliver to ${address} (${what}): allow it with --webhook-allow.`;
  }

  #internalReason(address: string, family: 'ipv4' | 'ipv6'): string | null {
    for (const [list, what] of this.#internal) if (list.check(address, family)) return what;
    return null;
  }

  /**
   * A `lookup` for `http.request` that resolves like `dns.lookup` (or `resolve`), then refuses
   * the connection when any address the name resolves to is refused.
   */
  lookup(destination: Destination, resolve: typeof dnsLookup = dnsLookup): typeof dnsLookup {
    const guarded = (hostname: string, options: unknown, callback: unknown): void => {
      const opts = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
      const done = (typeof options === 'function' ? options : callback) as (error: Error | null, address?: string | LookupAddress[], family?: number) => void;
      resolve(hostname, { ...opts, all: true }, (error, addresses) => {
        if (error) {
          done(error);
          return;
        }
        const list = addresses as LookupAddress[];
        if (list.length === 0) {
          done(new DeliveryRefusedError(`${hostname} resolved to no address.`));
          return;
        }
        for (const { address } of list) {
          const reason = this.refusal(destination, address);
          if (reason !== null) {
            done(new DeliveryRefusedError(reason));
            return;
          }
        }
        if (opts['all'] === true) done(null, list);
        else done(null, (list[0] as LookupAddress).address, (list[0] as LookupAddress).family);
      });
    };
    return guarded as typeof dnsLookup;
  }
}
