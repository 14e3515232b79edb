// Every state of the console a person can meet, for the accessibility test and bench/console-audit.ts: a seeded
// Waypost (an auto-disabled webhook with failed deliveries, keys, an alert) served to one Chromium, and a walk that
// shows each page, form, error, dialog and the delivery drawer in turn.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Waypost } from '../../src/sdk.js';
import { completeSetup, issueSetupToken, setupLink, setupRequired } from '../../src/admin/setup.js';
import { createApiKey } from '../../src/api/keys.js';
import { createWebhook, listWebhooks } from '../../src/webhooks/manage.js';
import { cliActor, recordAudit } from '../../src/audit/record.js';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import { buildConsole, launchChromium } from './browser.js';
import { startReceiver, type Receiver } from './receiver.js';

export const EMAIL = 'ops@example.com';
export const PASSWORD = 'a11y e2e password';
const W = { timeout: 15_000, interval: 100 };

export interface ConsoleEnv {
  wp: Waypost;
  base: string;
  browser: Browser;
  receiver: Receiver;
  failing: Receiver;
  ids: { crm: string; erp: string; failedDelivery: string };
  close(): Promise<void>;
}

const until = async (check: () => Promise<boolean>, what: string) => {
  for (const started = Date.now(); !(await check());) {
    if (Date.now() - started > W.timeout) throw new Error(`waited ${W.timeout} ms for ${what}`);
    await new Promise((r) => setTimeout(r, W.interval));
  }
};

/** A built console, a Waypost with a fast retry schedule, two receivers (one failing) and Chromium. */
export async function startConsoleEnv(): Promise<ConsoleEnv> {
  buildConsole();
  const receiver = await startReceiver();
  const failing = await startReceiver();
  failing.respondWith(500);
  const wp = await testWaypost({ config: { port: 0, host: '127.0.0.1', retryDelaysMs: [30, 30, 30, 30], pollMs: 50 } });
  const base = (await wp.serve('all')).url!;
  const browser = await launchChromium();
  const close = async () => {
    await browser.close();
    await wp.close();
    await receiver.close();
    await failing.close();
  };
  return { wp, base, browser, receiver, failing, ids: { crm: '', erp: '', failedDelivery: '' }, close };
}

/** Webhooks (one auto-disabled after failing), deliveries, an alert, two keys and audit entries. */
export async function seedConsole(env: ConsoleEnv): Promise<void> {
  const { wp, receiver, failing, ids } = env;
  const events = ['booking.created', 'booking.updated', 'customer.created', 'enquiry.created'];
  ids.crm = (await createWebhook(wp.core, { name: 'CRM sync', url: `${receiver.url}/crm`, events })).id;
  ids.erp = (await createWebhook(wp.core, { name: 'Legacy ERP', url: failing.url, events: ['enquiry.created'] })).id;
  const permissions = ['bookings.list', 'bookings.read'];
  await createApiKey(wp.core, { label: 'Analytics export', permissions, rateLimit: 120 });
  await createApiKey(wp.core, { label: 'Partner portal', permissions: ['trips.list'] });
  await seedAudit(wp, ids.crm);
  await wp.put('enquiries', 501, { full_name: 'Ada Lovelace', email: 'ada@example.com', message: 'Open in May?' });
  const erp = async () => (await listWebhooks(wp.core)).find((w) => w.id === ids.erp);
  await until(async () => !!(await erp())?.disabled_reason, 'the failing webhook to be auto-disabled');
  ids.failedDelivery = (await erp())!.last_delivery!.id;
}

/** The admin the walk creates through the setup page, for tests that run without the walk. */
export async function ensureAdmin(env: ConsoleEnv): Promise<void> {
  const { core } = env.wp;
  if (await setupRequired(core)) await completeSetup(core, await issueSetupToken(core), EMAIL, PASSWORD);
}

export function newContext(env: ConsoleEnv, width = 1280): Promise<BrowserContext> {
  return env.browser.newContext({ viewport: { width, height: width < 800 ? 780 : 860 }, baseURL: env.base })
    .then((c) => { c.setDefaultTimeout(15_000); return c; });
}

/** Waits for loading placeholders to go and fonts to settle. */
export async function settle(page: Page): Promise<void> {
  await page.locator('[aria-busy="true"]').first().waitFor({ state: 'detached' }).catch(() => {});
  await page.evaluate(() => document.fonts.ready.then(() => new Promise((r) => requestAnimationFrame(() => r(null)))));
}

/**
 * Shows each console state on `page` (a fresh context: it starts signed out, with no admin yet) and calls `visit`
 * with its name. Before: seedConsole. Signs in on the way, through the setup link.
 */
export async function walkStates(env: ConsoleEnv, page: Page, visit: (state: string) => Promise<void>): Promise<void> {
  const { base, ids } = env;
  const show = async (state: string) => { await settle(page); await visit(state); };
  const escape = async () => {
    while (await page.locator('dialog[open]').count()) await page.keyboard.press('Escape');
  };
  const app = (hash: string) => page.goto(`${base}/admin/${hash}`);
  page.on('dialog', (d) => void d.accept());

  const link = setupLink(env.wp.core, (await issueSetupToken(env.wp.core))!).replace(env.wp.config.baseUrl, base);
  await app('#/setup?token=not-a-real-token');
  await page.getByText('This setup link is invalid').first().waitFor();
  await show('setup-invalid-link');
  await page.goto(link);
  await page.getByLabel('Repeat password').waitFor();
  await show('setup');
  await page.getByRole('button', { name: 'Create admin and sign in' }).click();
  await page.locator('.field-error').first().waitFor();
  await show('setup-errors');
  await page.getByLabel('E-mail').fill(EMAIL);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create admin and sign in' }).click();
  await page.getByRole('heading', { name: 'Webhooks', exact: true }).waitFor();

  await page.locator('tr[data-webhook="Legacy ERP"]', { hasText: 'Auto-disabled' }).waitFor();
  await page.getByTestId('webhook-health').waitFor();
  await show('webhooks-auto-disabled');
  // The delivery charts' text alternative (issue 37): the first chart as a table.
  await page.getByRole('button', { name: 'Show table' }).first().click();
  await page.getByRole('table', { name: 'Attempts by outcome' }).waitFor();
  await show('webhooks-chart-table');
  await app('#/webhooks/new');
  await page.getByRole('heading', { name: 'Add webhook' }).waitFor();
  await show('webhook-new');
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.locator('.field-error').first().waitFor();
  await show('webhook-new-errors');
  await app(`#/webhooks/${ids.erp}`);
  await page.getByText('Waypost disabled this webhook.').first().waitFor();
  await show('webhook-edit-auto-disabled');
  await page.getByRole('button', { name: 'Rotate secret…' }).click();
  await show('dialog-rotate-secret');
  await escape();
  await page.getByRole('button', { name: 'Regenerate now…' }).click();
  await show('dialog-regenerate-secret');
  await escape();
  await page.getByRole('button', { name: 'Delete webhook…' }).click();
  await show('dialog-delete-webhook');
  await escape();
  await page.getByRole('button', { name: 'Re-enable' }).click();
  await page.getByRole('dialog', { name: 'Redeliver what was missed?' }).waitFor();
  await show('dialog-redeliver-missed');
  await escape();

  await app('#/keys');
  await page.locator('tr[data-key]').first().waitFor();
  await page.getByTestId('key-usage-totals').waitFor();
  await show('keys');
  await page.getByRole('button', { name: 'Show table' }).click();
  await page.getByRole('table', { name: 'Calls by status' }).waitFor();
  await show('keys-chart-table');
  await page.getByRole('button', { name: 'Add key', exact: true }).click();
  const addKey = page.getByRole('dialog', { name: 'Add API key' });
  await addKey.waitFor();
  await show('dialog-add-key');
  await addKey.getByRole('button', { name: 'Create key' }).click();
  await addKey.locator('.field-error').first().waitFor();
  await show('dialog-add-key-errors');
  await addKey.getByLabel('Label').fill('Walk key');
  await addKey.getByLabel('Trips: list').check();
  await addKey.getByRole('button', { name: 'Create key' }).click();
  const created = page.getByRole('dialog', { name: 'Your new API key' });
  await created.getByTestId('new-secret').waitFor();
  await show('dialog-new-key-secret');
  await created.getByRole('button', { name: 'I have saved the secret' }).click();
  await created.getByText('Did you copy the secret?').first().waitFor();
  await show('dialog-new-key-did-you-copy');
  await created.getByRole('button', { name: 'Yes, I copied it: close' }).click();
  await page.getByRole('button', { name: 'Edit Partner portal' }).click();
  await show('dialog-edit-key');
  await escape();
  await page.getByRole('button', { name: 'Delete Partner portal' }).click();
  await show('dialog-delete-key');
  await escape();

  await app('#/logs');
  await page.locator('tr[data-delivery]').first().waitFor();
  await show('logs-deliveries');
  await app('#/logs?status=cancelled&webhook_id=none');
  await page.getByText('No deliveries match these filters').first().waitFor();
  await show('logs-no-match');
  await app('#/logs?q=%3F%3F');
  await page.getByText('Search for an e-mail, name or trip').first().waitFor();
  await show('logs-search-error');
  await app(`#/logs?delivery=${ids.failedDelivery}`);
  await page.getByRole('dialog', { name: 'Delivery details' }).getByTestId('attempt').first().waitFor();
  await show('delivery-drawer');
  await escape();
  await app('#/logs?view=alerts');
  await page.getByRole('heading', { name: 'Webhooks & API' }).waitFor();
  await show('logs-alerts');
  await app('#/logs?view=usage');
  await show('logs-usage');

  await app('#/events');
  await page.locator('tr[data-event]').first().waitFor();
  await show('events');
  await app('#/events?type=review.*&record=booking:1');
  await page.getByText('No events match these filters').first().waitFor();
  await show('events-no-match');
  await app('#/events?type=enquiry.created');
  await page.locator('tr[data-event]').first().getByRole('button', { name: /Details of event/ }).click();
  const eventPanel = page.getByRole('dialog', { name: 'Event details' });
  await eventPanel.getByTestId('outcome').first().waitFor();
  await show('event-panel');
  await eventPanel.getByRole('button', { name: 'Send to webhook…' }).click();
  await page.getByRole('dialog', { name: 'Send to webhook' }).waitFor();
  await show('dialog-send-event');
  await escape();

  await app('#/audit');
  await page.locator('tr[data-audit]').first().waitFor();
  await show('audit');
  await app('#/audit?action=person.erased');
  await page.getByText('No entries match these filters').first().waitFor();
  await show('audit-no-match');

  await app('#/settings');
  await page.getByRole('button', { name: 'Save settings' }).waitFor();
  await show('settings');
  await page.getByLabel('Keep delivery logs for (days)').fill('forever');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.locator('.field-error').first().waitFor();
  await show('settings-errors');
  await page.getByLabel('Keep delivery logs for (days)').fill('30');
  await page.getByRole('button', { name: 'Save settings' }).click();

  // WordPress asked to sign in as this password account and was refused: the owner sees it, and allows it.
  const refused = await fetch(`${base}/host/v1/sign-in-links`, {
    method: 'POST', headers: { ...HOST_AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, name: 'Olga Owner', wp_user_id: 1, site_url: 'https://shop.example.com' }),
  });
  if (refused.status !== 403) throw new Error(`a sign-in link for a password account answered ${refused.status}`);
  await app('#/account');
  await page.getByRole('button', { name: 'Allow WordPress user #1' }).waitFor();
  await show('account-wordpress-request');
  await page.getByRole('button', { name: 'Allow WordPress user #1' }).click();
  await page.getByRole('button', { name: 'Stop WordPress sign-in' }).waitFor();
  await show('account-wordpress-linked');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await show('sign-in');
  await page.getByLabel('E-mail').fill(EMAIL);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.form-error, .field-error').first().waitFor();
  await show('sign-in-error');
  await app('#/setup?token=spent');
  await page.getByText('Waypost already has an admin.').first().waitFor();
  await show('setup-done');
}

/** Audit entries from each door, with the longest parts the Audit log tab shows (an e-mail, fields changed). */
export async function seedAudit(wp: Waypost, webhookId: string): Promise<void> {
  const admin = { type: 'admin' as const, ip: '2001:db8:85a3::8a2e:370:7334',
    name: 'adm_01a2b3c4d5e6f7a8b9c0d1e2f3a4 operations.team@travel-agency.example.com' };
  await recordAudit(wp.core, admin, { action: 'webhook.updated', targetType: 'webhook', targetId: webhookId,
    details: { fields: ['name', 'url', 'events', 'max_per_second', 'filter', 'ordering'] } });
  await recordAudit(wp.core, { ...admin, type: 'wordpress' }, { action: 'settings.changed', targetType: 'settings',
    targetId: null, details: { fields: ['alert_email', 'log_retention_days', 'audit_retention_days'] } });
  await recordAudit(wp.core, cliActor(), { action: 'webhook.secret_rotated', targetType: 'webhook',
    targetId: webhookId, details: { grace_s: 86400 } });
}
