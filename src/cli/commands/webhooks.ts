// `waypost webhooks create|list|show|update|enable|disable|delete|test|secret`: the same service functions as the
// admin JSON API (src/webhooks/manage.ts).
import type { Command } from 'commander';
import { createWebhook, deleteWebhook, disableWebhookByAdmin, enableWebhook, getWebhook, listWebhooks, revealSecret, rotateSecret, updateWebhook, type WebhookView } from '../../webhooks/manage.js';
import { sendTestEvent } from '../../webhooks/test-send.js';
import { output, withWaypost } from '../context.js';
import { fields, table } from '../table.js';

const list = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);

function state(w: WebhookView): string {
  return w.active ? 'active' : w.disabled_reason ? `disabled (${w.disabled_reason})` : 'disabled';
}

function describe(w: WebhookView & { secret?: string }): string {
  return fields([
    ['id', w.id],
    ['name', w.name],
    ['url', w.url],
    ['events', w.events.join(', ')],
    ['state', state(w)],
    ...(w.secret ? [['secret', w.secret] as [string, string]] : []),
    ['last delivery', w.last_delivery ? `${w.last_delivery.status} ${w.last_delivery.last_status ?? ''} ${w.last_delivery.created_at} (${w.last_delivery.id})` : null],
    ['created', w.created_at],
    ['updated', w.updated_at],
    ...(w.warning ? [['warning', w.warning] as [string, string]] : []),
  ]);
}

export function registerWebhooks(program: Command): void {
  const webhooks = program.command('webhooks').description('Manage webhooks: create, list, enable, disable, delete, test, secret');

  webhooks.command('create')
    .description('Create a webhook; prints it with its signing secret')
    .requiredOption('--name <name>', 'a name for people (1-100 characters)')
    .requiredOption('--url <url>', 'the receiver, an absolute https:// URL')
    .requiredOption('--events <types>', 'comma-separated event types, e.g. booking.created,booking.updated')
    .option('--inactive', 'create it disabled')
    .option('--json', 'machine-readable output')
    .action(async (opts: { name: string; url: string; events: string; inactive?: boolean; json?: boolean }) => {
      await withWaypost(async (wp) => {
        const created = await createWebhook(wp.core, { name: opts.name, url: opts.url, events: list(opts.events), active: !opts.inactive });
        output(opts.json, created, () => `${describe(created)}\n\nKeep the secret: receivers verify X-${wp.config.serviceName}-Signature with it (\`waypost webhooks secret ${created.id}\` shows it again).`);
      });
    });

  webhooks.command('list')
    .description('List webhooks with their state and last delivery')
    .option('--json', 'machine-readable output')
    .action(async (opts: { json?: boolean }) => {
      await withWaypost(async (wp) => {
        const all = await listWebhooks(wp.core);
        output(opts.json, all, () => table(
          ['ID', 'NAME', 'STATE', 'EVENTS', 'LAST DELIVERY', 'URL'],
          all.map((w) => [w.id, w.name, w.active ? 'active' : 'disabled', w.events.join(','), w.last_delivery ? `${w.last_delivery.status}${w.last_delivery.last_status ? ` ${w.last_delivery.last_status}` : ''}` : null, w.url]),
          'No webhooks yet. Create one with `waypost webhooks create --name N --url U --events booking.created`.',
        ));
      });
    });

  webhooks.command('show <id>')
    .description('Show one webhook (without its secret)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withWaypost(async (wp) => {
        const w = await getWebhook(wp.core, id);
        output(opts.json, w, () => describe(w));
      });
    });

  webhooks.command('update <id>')
    .description('Change a webhook\'s name, URL or events (its delivery history is kept)')
    .option('--name <name>', 'new name')
    .option('--url <url>', 'new receiver URL')
    .option('--events <types>', 'new comma-separated event types')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { name?: string; url?: string; events?: string; json?: boolean }) => {
      await withWaypost(async (wp) => {
        const w = await updateWebhook(wp.core, id, { name: opts.name, url: opts.url, events: opts.events === undefined ? undefined : list(opts.events) });
        output(opts.json, w, () => describe(w));
      });
    });

  for (const [name, action, verb] of [['enable', enableWebhook, 'enabled'], ['disable', disableWebhookByAdmin, 'disabled']] as const) {
    webhooks.command(`${name} <id>`)
      .description(name === 'enable' ? 'Re-enable a webhook (cancelled deliveries can then be redelivered)' : 'Disable a webhook; its pending deliveries are cancelled')
      .option('--json', 'machine-readable output')
      .action(async (id: string, opts: { json?: boolean }) => {
        await withWaypost(async (wp) => {
          const w = await action(wp.core, id);
          output(opts.json, w, () => `Webhook ${w.id} (${w.name}) ${verb}.`);
        });
      });
  }

  webhooks.command('delete <id>')
    .description('Delete a webhook; pending deliveries are cancelled, the delivery log is kept')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { json?: boolean }) => {
      await withWaypost(async (wp) => {
        await deleteWebhook(wp.core, id);
        output(opts.json, { id, deleted: true }, () => `Webhook ${id} deleted.`);
      });
    });

  webhooks.command('test <id>')
    .description('Send a sample event (marked test) now and print the receiver\'s answer')
    .option('--event <type>', 'which event type to sample (default: the webhook\'s first)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { event?: string; json?: boolean }) => {
      await withWaypost(async (wp) => {
        const result = await sendTestEvent(wp.core, id, opts.event);
        output(opts.json, result, () => [
          fields([
            ['result', result.success ? 'success' : 'failed'],
            ['event', `${result.event_type} (${result.event_id}, test)`],
            ['delivery', result.delivery_id],
            ['status', result.response?.status ?? null],
            ['duration', `${result.duration_ms} ms`],
            ...(result.error ? [['error', result.error] as [string, string]] : []),
          ]),
          ...(result.response ? ['', result.response.body === '' ? '(empty body)' : result.response.body] : []),
        ].join('\n'));
        if (!result.success) process.exitCode = 1;
      });
    });

  webhooks.command('secret <id>')
    .description('Print the webhook\'s signing secret; --rotate replaces it first')
    .option('--rotate', 'generate a new secret (the old one stops working at once)')
    .option('--json', 'machine-readable output')
    .action(async (id: string, opts: { rotate?: boolean; json?: boolean }) => {
      await withWaypost(async (wp) => {
        const { secret } = opts.rotate ? await rotateSecret(wp.core, id) : await revealSecret(wp.core, id);
        output(opts.json, { id, secret }, () => secret);
      });
    });
}
