// The SSRF guard: refused at save time (checkTargetUrl) and at connect time (the HTTP client's lookup), unless
// WAYPOST_ALLOW_PRIVATE_TARGETS is on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import type { LookupAddress } from 'node:dns';
import { checkTargetUrl, guardedLookup, isPrivateAddress } from '../../src/webhooks/ssrf.js';
import { sendWebhook } from '../../src/webhooks/send.js';
import { startReceiver, type Receiver } from './engine/receiver.js';

const strict = loadConfig({ WAYPOST_DELIVERY_TIMEOUT_MS: '3000' });
const relaxed = loadConfig({ WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' });

async function refusal(url: string): Promise<AppError> {
  try {
    await checkTargetUrl(url, strict);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error(`${url} was accepted`);
}

describe('SSRF guard at save time', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://127.9.9.9/hook',
    'http://[::1]/hook',
    'http://10.0.0.5/hook',
    'http://172.16.0.1/hook',
    'http://172.31.255.254/hook',
    'http://192.168.1.20/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://224.0.0.1/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:a9fe:a9fe]/hook',
    'http://[::ffff:10.1.2.3]/hook',
    'http://[fe80::1]/hook',
    'http://[fd00:ec2::254]/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://localhost:8080/hook',
  ])('refuses %s with 400 private_target', async (url) => {
    const err = await refusal(url);
    expect(err.status).toBe(400);
    expect(err.code).toBe('private_target');
    // How to allow it for local development, and the address named once (a name adds its address in brackets).
    expect(err.detail).toContain('allow private targets: npx waypost settings set --allow-private-targets true');
    const address = /^(\S+)(?: \((\S+)\))? is a private/.exec(err.detail);
    expect(address, err.detail).not.toBeNull();
    expect(err.detail.split(address![2] ?? address![1]).length - 1, err.detail).toBe(1);
  });

  it.each([
    ['ftp://example.com/x', 'https:// or http://'],
    ['/relative/path', 'not a valid absolute URL'],
    ['not a url', 'not a valid absolute URL'],
    ['https://user:pass@example.com/hook', 'credentials'],
    ['javascript:alert(1)', 'https:// or http://'],
  ])('refuses %s with 400 invalid_url', async (url, message) => {
    const err = await refusal(url);
    expect(err).toMatchObject({ status: 400, code: 'invalid_url' });
    expect(err.detail).toContain(message);
  });

  it('accepts public addresses, warning about plain http://', async () => {
    expect(await checkTargetUrl('https://93.184.215.14/hooks/waypost', strict))
      .toEqual({ url: 'https://93.184.215.14/hooks/waypost', warning: null });
    const plain = await checkTargetUrl('http://[2606:4700:4700::1111]:8080/in', strict);
    expect(plain.warning).toMatch(/https:\/\/ is recommended/);
  });

  it('accepts private targets when WAYPOST_ALLOW_PRIVATE_TARGETS is on', async () => {
    expect((await checkTargetUrl('http://127.0.0.1:3000/hook', relaxed)).url).toBe('http://127.0.0.1:3000/hook');
    await expect(checkTargetUrl('ftp://127.0.0.1/', relaxed)).rejects.toMatchObject({ code: 'invalid_url' });
  });

  it('classifies addresses, IPv4-mapped IPv6 included', () => {
    expect(isPrivateAddress('::ffff:192.168.0.1')).toBe(true);
    expect(isPrivateAddress('::ffff:8.8.8.8')).toBe(false);
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('2001:4860:4860::8888')).toBe(false);
  });
});

// IPv6 spellings that embed an IPv4 address are judged by that address (see ssrf.ts); each refused row names the
// embedding and the IPv4 address it carries. Public embeddings must still be accepted.
describe('SSRF guard: IPv6 forms that embed IPv4, and other spellings', () => {
  it.each([
    ['http://[::127.0.0.1]/hook', 'IPv4-compatible ::/96 -> 127.0.0.1'],
    ['http://[::a9fe:a9fe]/hook', 'IPv4-compatible, hex -> 169.254.169.254'],
    ['http://[0:0:0:0:0:0:a00:1]/hook', 'IPv4-compatible, uncompressed -> 10.0.0.1'],
    ['http://[::ffff:0:127.0.0.1]/hook', 'IPv4-translated ::ffff:0:0:0/96 -> 127.0.0.1'],
    ['http://[::FFFF:0:A9FE:A9FE]/hook', 'IPv4-translated, upper case -> 169.254.169.254'],
    ['http://[0000:0000:0000:0000:0000:ffff:7f00:0001]/hook', 'IPv4-mapped, leading zeros -> 127.0.0.1'],
    ['http://[::ffff:7f00:1]/hook', 'IPv4-mapped, hex -> 127.0.0.1'],
    ['http://[fec0::1]/hook', 'deprecated site-local fec0::/10'],
    ['http://[FEFF:ffff::1]/hook', 'site-local, top of the range, upper case'],
    ['http://[64:ff9b::127.0.0.1]/hook', 'NAT64 64:ff9b::/96 -> 127.0.0.1'],
    ['http://[64:ff9b::a9fe:a9fe]/hook', 'NAT64 -> 169.254.169.254'],
    ['http://[64:ff9b:1::808:808]/hook', 'local-use NAT64 64:ff9b:1::/48, refused whatever it embeds'],
    ['http://[64:ff9b:1:ffff::1]/hook', 'local-use NAT64, end of the /48'],
    ['http://[2002:7f00:1::]/hook', '6to4 2002::/16 -> 127.0.0.1'],
    ['http://[2002:a9fe:a9fe::1]/hook', '6to4 -> 169.254.169.254'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook', 'Teredo, client (inverted) -> 127.0.0.1'],
    ['http://[2001:0:a00:1:8000:63bf:f7f7:f7f7]/hook', 'Teredo, server -> 10.0.0.1'],
    ['http://0177.0.0.1/hook', 'octal IPv4 -> 127.0.0.1'],
    ['http://127.1/hook', 'short IPv4 -> 127.0.0.1'],
    ['http://0x7f000001/hook', 'hex IPv4 -> 127.0.0.1'],
    ['http://0xA9.0xFE.0xA9.0xFE/hook', 'hex IPv4 per octet -> 169.254.169.254'],
  ])('refuses %s (%s) with 400 private_target', async (url) => {
    const err = await refusal(url);
    expect(err).toMatchObject({ status: 400, code: 'private_target' });
  });

  it.each([
    'https://[2606:4700:4700::1111]/hook',
    'https://[::ffff:8.8.8.8]/hook',
    'https://[::ffff:0:8.8.8.8]/hook',
    'https://[::8.8.8.8]/hook',
    'https://[64:ff9b::808:808]/hook',
    'https://[64:ff9b::8.8.8.8]/hook',
    'https://[2002:808:808::1]/hook',
    'https://[2001:0:4136:e378:8000:63bf:f7f7:f7f7]/hook',
    'https://0x8.0x8.0x8.0x8/hook',
  ])('accepts the public %s', async (url) => {
    expect((await checkTargetUrl(url, strict)).url).toBe(new URL(url).toString());
  });

  // Addresses as DNS answers them (no URL parser in between): zone ids, brackets, case and zeros must not matter.
  it.each([
    ['fe80::1%eth0', true],
    ['fec0::1%2', true],
    ['[::127.0.0.1]', true],
    ['::FFFF:7F00:1', true],
    ['0000:0000:0000:0000:ffff:0000:0a00:0001', true],
    ['::ffff:0:10.0.0.1', true],
    ['64:FF9B::C0A8:1', true],
    ['64:ff9b:1::', true],
    ['2002:c0a8:101::', true],
    ['2001::7fff:fffe', true], // Teredo with server 0.0.0.0 and client 128.0.0.1
    ['::', true],
    ['::1', true],
    ['::ffff:127.000.0.1', true], // leading zeros in the dotted tail: not an address, so refused
    ['2606:4700:4700::1111', false],
    ['[::ffff:8.8.8.8]', false],
    ['64:ff9b::808:808', false],
    ['2002:808:808::', false],
  ])('isPrivateAddress(%s) is %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });

  it('refuses an embedded private address in the connect-time lookup too', async () => {
    const lookup = (host: string) => new Promise<LookupAddress[]>((resolve, reject) => {
      guardedLookup(host, { all: true }, (err, found) => (err ? reject(err) : resolve(found as LookupAddress[])));
    });
    for (const host of ['::127.0.0.1', '::ffff:0:127.0.0.1', 'fec0::1', '64:ff9b::7f00:1']) {
      await expect(lookup(host)).rejects.toMatchObject({ code: 'EPRIVATETARGET' });
    }
    expect(await lookup('2606:4700:4700::1111')).toEqual([{ address: '2606:4700:4700::1111', family: 6 }]);
  });
});

describe('SSRF guard at connect time', () => {
  let receiver: Receiver;
  beforeAll(async () => { receiver = await startReceiver(); });
  afterAll(async () => receiver.close());

  it('refuses a hostname that resolves to a private address when connecting (DNS rebinding), and sends nothing',
    async () => {
    const res = await sendWebhook(strict, `http://localhost:${receiver.port}/hook`,
      { 'content-type': 'application/json' }, '{}');
    expect(res.status).toBeNull();
    expect(res.error).toMatch(/private address/);
    expect(receiver.requests).toHaveLength(0);
  });

  it.each(['[::ffff:127.0.0.1]', '[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[fec0::1]'])(
    'refuses the private IP literal %s when connecting, and sends nothing', async (host) => {
      const res = await sendWebhook(strict, `http://${host}:${receiver.port}/hook`, {}, '{}');
      expect(res.error).toMatch(/private address/);
      expect(receiver.requests).toHaveLength(0);
    });

  it('connects to the same receiver when private targets are allowed', async () => {
    const res = await sendWebhook(relaxed, `http://localhost:${receiver.port}/hook`, {}, '{}');
    expect(res.status).toBe(200);
    expect(receiver.requests).toHaveLength(1);
  });
});
