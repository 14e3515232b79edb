// The SSRF guard (DESIGN.md "Target URL"): a webhook may only target public addresses. Checked when a webhook is
// saved (checkTargetUrl) and again when connecting (guardedLookup in the HTTP client), so a hostname that later
// re-resolves to a private address (DNS rebinding) is refused too. Private targets can be allowed for local
// development (src/webhooks/private-targets.ts).
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { promises as dns } from 'node:dns';
import type { Config } from '../config.js';
import { badRequest } from '../errors.js';
import { ALLOW_PRIVATE_TARGETS_COMMAND } from './private-targets.js';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT (also Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata 169.254.169.254)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) blocked.addSubnet(net, prefix, 'ipv4');
// Forms that embed an IPv4 address (NAT64 64:ff9b::/96, 6to4, Teredo, mapped, translated, compatible) are not listed
// here: isPrivateAddress judges them by the IPv4 address they carry, so a public one stays reachable.
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into a private network, whatever it embeds
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (also AWS metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local: deprecated (RFC 3879) but still a private range
  ['ff00::', 8], // multicast
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address already validated by isIP (any case, leading zeros, dotted-quad tail). */
function ipv6Bytes(ip: string): Uint8Array {
  const [head = '', tail] = ip.split('::');
  const groups = (part: string | undefined): number[] => {
    if (!part) return [];
    return part.split(':').flatMap((g) => {
      if (!g.includes('.')) return [parseInt(g, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const left = groups(head);
  const right = groups(tail);
  const all = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => { bytes[2 * i] = g >> 8; bytes[2 * i + 1] = g & 0xff; });
  return bytes;
}

const v4At = (b: Uint8Array, i: number, xor = 0): string =>
  [0, 1, 2, 3].map((k) => (b[i + k] ^ xor) & 0xff).join('.');
const zero = (b: Uint8Array, from: number, to: number): boolean => b.subarray(from, to).every((x) => x === 0);

/**
 * The IPv4 addresses an IPv6 address carries, by the standard embeddings; a packet to it can end up at them
 * (through a translator, a tunnel, or a stack that treats the form as IPv4), so they decide whether it is private.
 */
function embeddedIPv4(b: Uint8Array): string[] {
  const word = (i: number): number => (b[i] << 8) | b[i + 1];
  if (zero(b, 0, 10) && word(10) === 0xffff) return [v4At(b, 12)]; // IPv4-mapped ::ffff:0:0/96
  if (zero(b, 0, 8) && word(8) === 0xffff && word(10) === 0) return [v4At(b, 12)]; // IPv4-translated ::ffff:0:0:0/96
  if (zero(b, 0, 12)) return [v4At(b, 12)]; // IPv4-compatible ::/96 (:: and ::1 are blocked above as well)
  if (word(0) === 0x64 && word(2) === 0xff9b && zero(b, 4, 12)) return [v4At(b, 12)]; // NAT64 64:ff9b::/96
  if (word(0) === 0x2002) return [v4At(b, 2)]; // 6to4 2002::/16: the site's IPv4 in bits 16-48
  if (word(0) === 0x2001 && word(2) === 0) return [v4At(b, 4), v4At(b, 12, 0xff)]; // Teredo: server, client (inverted)
  return [];
}

/**
 * True for loopback, private, link-local, CGNAT, multicast, metadata and unspecified addresses, and for IPv6 addresses
 * that embed such an IPv4 address. Accepts the address as DNS or a URL gives it: brackets and a zone id are ignored.
 */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family !== 6) return true; // not an address at all: refuse
  if (blocked.check(ip, 'ipv6')) return true;
  return embeddedIPv4(ipv6Bytes(ip)).some((v4) => blocked.check(v4, 'ipv4'));
}

/** "127.0.0.1", or "db.internal (10.0.0.5)" for a name: the address is named once, and only when it adds something. */
function named(host: string, address: string): string {
  return host.replace(/^\[|\]$/g, '') === address ? address : `${host} (${address})`;
}

const HOW_TO_ALLOW = `for local development, allow private targets: ${ALLOW_PRIVATE_TARGETS_COMMAND}`;

export class PrivateTargetError extends Error {
  readonly code = 'EPRIVATETARGET';
  constructor(host: string, address: string) {
    super(`refused to connect to ${named(host, address)}: a private address (${HOW_TO_ALLOW})`);
    this.name = 'PrivateTargetError';
  }
}

/** Parses a webhook target URL; 400 `invalid_url` for anything but an absolute http(s) URL without credentials. */
export function parseTargetUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('invalid_url', `"${raw}" is not a valid absolute URL`, { field: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    const detail = `the URL must start with https:// or http://, not ${url.protocol}//`;
    throw badRequest('invalid_url', detail, { field: 'url' });
  }
  if (url.username || url.password) {
    const detail = 'the URL must not contain credentials (user:password@); '
      + 'authenticate receivers with the signature instead';
    throw badRequest('invalid_url', detail, { field: 'url' });
  }
  if (!url.hostname) throw badRequest('invalid_url', 'the URL has no host', { field: 'url' });
  return url;
}

/** The host of a URL as an IP literal (brackets removed), or null when it is a name. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) ? host : null;
}

/** The advice about a target URL, at save time and next to a stored one in lists: plain http:// is not encrypted. */
export function urlWarning(url: string): string | null {
  return url.startsWith('http://') ? 'http:// sends payloads unencrypted; https:// is recommended' : null;
}

/**
 * Save-time check: a valid URL whose host is public (every address it resolves to), unless private targets are
 * allowed. Returns the normalised URL and a warning for plain http://.
 */
export async function checkTargetUrl(
  raw: string, config: Pick<Config, 'allowPrivateTargets'>,
): Promise<{ url: string; warning: string | null }> {
  const url = parseTargetUrl(raw.trim());
  const warning = urlWarning(url.toString());
  if (config.allowPrivateTargets) return { url: url.toString(), warning };
  const literal = literalAddress(url);
  let addresses: string[];
  if (literal) addresses = [literal];
  else {
    try {
      addresses = (await dns.lookup(url.hostname, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw badRequest('invalid_url', `the host "${url.hostname}" could not be resolved`, { field: 'url' });
    }
  }
  const priv = addresses.find(isPrivateAddress);
  if (priv !== undefined) {
    throw badRequest('private_target', `${named(url.hostname, priv)} is a private, loopback, link-local or metadata `
      + `address; webhooks must target a public one (${HOW_TO_ALLOW})`, { field: 'url' });
  }
  return { url: url.toString(), warning };
}

export type LookupCallback =
  (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Connect-time guard: a drop-in for dns.lookup (net.connect's `lookup` option) that fails when any resolved
 * address is private. Node calls it with `all: true` when happy-eyeballs is on, so both forms are handled.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const list = addresses as LookupAddress[];
    const priv = list.find((a) => isPrivateAddress(a.address));
    if (priv) return callback(new PrivateTargetError(hostname, priv.address) as unknown as NodeJS.ErrnoException, '');
    if (options.all) return callback(null, list);
    const first = list[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
    callback(null, first.address, first.family);
  });
}
