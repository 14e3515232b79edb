// The SSRF guard: refused at save time (checkTargetUrl) and at connect time (the HTTP client's lookup), unless
// WAYPOST_ALLOW_PRIVATE_TARGETS is on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import { checkTargetUrl, isPrivateAddress } from '../../src/webhooks/ssrf.js';
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
    expect(err.detail).toContain('WAYPOST_ALLOW_PRIVATE_TARGETS');
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
    expect(await checkTargetUrl('https://93.184.215.14/hooks/waypost', strict)).toEqual({ url: 'https://93.184.215.14/hooks/waypost', warning: null });
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

describe('SSRF guard at connect time', () => {
  let receiver: Receiver;
  beforeAll(async () => { receiver = await startReceiver(); });
  afterAll(async () => receiver.close());

  it('refuses a hostname that resolves to a private address when connecting (DNS rebinding), and sends nothing', async () => {
    const res = await sendWebhook(strict, `http://localhost:${receiver.port}/hook`, { 'content-type': 'application/json' }, '{}');
    expect(res.status).toBeNull();
    expect(res.error).toMatch(/private address/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a private IP literal when connecting, and sends nothing', async () => {
    const res = await sendWebhook(strict, `http://[::ffff:127.0.0.1]:${receiver.port}/hook`, {}, '{}');
    expect(res.error).toMatch(/private address/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('connects to the same receiver when private targets are allowed', async () => {
    const res = await sendWebhook(relaxed, `http://localhost:${receiver.port}/hook`, {}, '{}');
    expect(res.status).toBe(200);
    expect(receiver.requests).toHaveLength(1);
  });
});
