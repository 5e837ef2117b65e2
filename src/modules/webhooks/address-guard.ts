// The public-address rule for receiving URLs: https only, no credentials, and every address the
// host resolves to must be public unicast. Checked when a URL is saved and again on the address
// actually dialled (see sender.ts), so DNS rebinding opens no window.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

type Range = [string, string];

// IPv4 ranges that are not public unicast (IANA special-purpose registry).
const IPV4_BLOCKED: Range[] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
];

// IPv6: public unicast lives in 2000::/3; inside it, these are not public.
const IPV6_BLOCKED_IN_GLOBAL: Range[] = [
  ['2001::/32', 'Teredo'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:10::/28', 'ORCHID'],
  ['2001:20::/28', 'ORCHID'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
];

const parsedV4 = IPV4_BLOCKED.map(([cidr, why]) => [ipaddr.IPv4.parseCIDR(cidr), why] as const);
const parsedV6 = IPV6_BLOCKED_IN_GLOBAL.map(([cidr, why]) => [ipaddr.IPv6.parseCIDR(cidr), why] as const);

/** Why an address is not public unicast, or null when it is. */
export function nonPublicReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return 'not an IP address';
  const ip = ipaddr.parse(bare);
  if (ip.kind() === 'ipv4') return ipv4Reason(ip as ipaddr.IPv4);
  return ipv6Reason(ip as ipaddr.IPv6);
}

function ipv4Reason(ip: ipaddr.IPv4): string | null {
  for (const [range, why] of parsedV4) if (ip.match(range)) return why;
  return null;
}

function ipv6Reason(ip: ipaddr.IPv6): string | null {
  const bytes = ip.toByteArray();
  const v4At = (offset: number) =>
    new ipaddr.IPv4(bytes.slice(offset, offset + 4) as [number, number, number, number]);
  const embedded = (offset: number, form: string) => {
    const why = ipv4Reason(v4At(offset));
    return why ? `${form} embedding ${why}` : null;
  };
  const words = ip.parts;
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && words[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, which ipaddr.js calls unicast).
  if (zeros(0, 5) && words[5] === 0xffff) return embedded(12, 'IPv4-mapped') ?? null;
  if (zeros(0, 6)) return embedded(12, 'IPv4-compatible') ?? null;
  // NAT64 well-known prefix 64:ff9b::/96 carries the IPv4 address in its last 32 bits.
  if (words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)) return embedded(12, 'NAT64') ?? null;
  if (words[0] === 0x64 && words[1] === 0xff9b && words[2] === 1) return 'NAT64 local use';
  // 6to4 2002::/16 carries the IPv4 address in bits 16–47.
  if (words[0] === 0x2002) return embedded(2, '6to4') ?? null;
  const first = words[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'unique local';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xffc0) === 0xfec0) return 'site-local';
  if ((first & 0xff00) === 0xff00) return 'multicast';
  if ((first & 0xe000) !== 0x2000) return 'reserved';
  for (const [range, why] of parsedV6) if (ip.match(range)) return why;
  return null;
}

/**
 * WEBHOOK_ALLOW_PRIVATE_HOSTS: host names (matched against the URL's host) and addresses or
 * CIDR ranges (matched against every resolved address).
 */
export class AllowList {
  private readonly names = new Set<string>();
  private readonly ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address, bits] = entry.split('/');
      if (address && ipaddr.isValid(address)) {
        const ip = ipaddr.parse(address);
        this.ranges.push([ip, bits === undefined ? (ip.kind() === 'ipv4' ? 32 : 128) : Number(bits)]);
      } else if (address) {
        this.names.add(address.toLowerCase());
      }
    }
  }

  hasName(host: string): boolean {
    return this.names.has(host.toLowerCase().replace(/\.$/, ''));
  }

  hasAddress(address: string): boolean {
    const ip = ipaddr.process(address.replace(/^\[|\]$/g, ''));
    return this.ranges.some(([base, bits]) => {
      if (base.kind() !== ip.kind()) return false;
      return (ip as ipaddr.IPv4).match(base as ipaddr.IPv4, bits);
    });
  }
}

/** localhost and *.localhost always mean this machine (RFC 6761), whatever the resolver says. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** A refusal: the message key of the field error and its parameters. */
export interface UrlProblem {
  key:
    | 'webhook.url.invalid'
    | 'webhook.url.whitespace'
    | 'webhook.url.https_required'
    | 'webhook.url.credentials'
    | 'webhook.url.unresolvable'
    | 'webhook.url.private_address';
  params: Record<string, string>;
}

/** Why an address may not be dialled under this allow-list, or null. */
export function refusedAddressReason(address: string, allowList: AllowList): string | null {
  const why = nonPublicReason(address);
  if (why === null || allowList.hasAddress(address)) return null;
  return why;
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true } satisfies LookupAllOptions, (err, addresses) =>
      err ? reject(err) : resolve((addresses as LookupAddress[]).map((a) => a.address)),
    );
  });

/** The checks that need no network: a valid URL, https, no credentials, a host. */
export function urlShapeProblem(raw: string): UrlProblem | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { key: 'webhook.url.invalid', params: {} };
  }
  // The URL parser drops tabs and line breaks inside a URL and trims it: what was stored would not
  // be what is dialled. Such a URL is refused rather than silently changed.
  if (hasSpaceOrControl(raw)) return { key: 'webhook.url.whitespace', params: {} };
  if (url.protocol !== 'https:') return { key: 'webhook.url.https_required', params: {} };
  if (url.username !== '' || url.password !== '') return { key: 'webhook.url.credentials', params: {} };
  if (url.hostname === '') return { key: 'webhook.url.invalid', params: {} };
  return null;
}

/** Whether a text holds a space or a C0/C1 control character (U+0000-U+0020, U+007F-U+009F). */
export function hasSpaceOrControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** The save-time check: syntax, scheme, credentials, and every address the host resolves to. */
export async function checkReceivingUrl(
  raw: string,
  allowList: AllowList,
  resolve: Resolver = systemResolver,
): Promise<UrlProblem | null> {
  const shape = urlShapeProblem(raw);
  if (shape) return shape;
  return checkHostAddresses(new URL(raw).hostname, allowList, resolve);
}

/**
 * The public-address rule for a host (name or IP address, IPv6 with or without brackets): every
 * address it resolves to must be public unicast, unless the allow-list exempts it. MQTT brokers
 * follow the same rule as receiving URLs.
 */
export async function checkHostAddresses(
  hostname: string,
  allowList: AllowList,
  resolve: Resolver = systemResolver,
): Promise<UrlProblem | null> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (allowList.hasName(host)) return null;
  if (isLocalhostName(host))
    return { key: 'webhook.url.private_address', params: { address: host, reason: 'loopback' } };
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      return { key: 'webhook.url.unresolvable', params: { host } };
    }
    if (addresses.length === 0) return { key: 'webhook.url.unresolvable', params: { host } };
  }
  for (const address of addresses) {
    const why = refusedAddressReason(address, allowList);
    if (why) return { key: 'webhook.url.private_address', params: { address, reason: why } };
  }
  return null;
}

export class RefusedAddressError extends Error {
  readonly code = 'EFURROW_REFUSED_ADDRESS';
  constructor(address: string, reason: string) {
    super(`refused to connect to ${address}: not a public address (${reason})`);
  }
}

/** A dns.lookup that fails when any address of the host may not be dialled. */
export function guardedLookup(allowList: AllowList): LookupFunction {
  return (hostname, options, callback) => {
    if (isLocalhostName(hostname) && !allowList.hasName(hostname)) {
      return callback(new RefusedAddressError(hostname, 'loopback'), '', 0);
    }
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as LookupAddress[];
      if (!allowList.hasName(hostname)) {
        for (const { address } of list) {
          const why = refusedAddressReason(address, allowList);
          if (why) return callback(new RefusedAddressError(address, why), '', 0);
        }
      }
      // With `all`, the caller (net's lookup) expects the whole list in place of one address.
      if (options.all) return (callback as unknown as (err: null, all: LookupAddress[]) => void)(null, list);
      const first = list[0];
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}
