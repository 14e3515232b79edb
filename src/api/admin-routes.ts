// Admin JSON API for API keys and their usage (the console's "API Keys" tab). The admin auth hook is applied by
// src/admin/routes.ts. The key and secret are returned once, by the create call; lists show a key prefix only.
// Changes are recorded in the audit log (src/audit/) in the change's own transaction, by the key's id, never its key
// or secret.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { requestActor } from '../audit/record.js';
import { apiRoot } from '../config.js';
import type { Core } from '../core.js';
import { humanValidationError } from '../http/validation-messages.js';
import {
  createApiKey, deleteApiKey, keyPrefix, listApiKeys, setApiKeyActive, updateApiKey, type ApiKeyInfo,
} from './keys.js';
import { apiServices } from './install.js';
import { usageByKey } from './usage.js';
import { keyUsageSeries } from './usage-series.js';

// One type list, not a union: Fastify's coercion would turn 0 into null in a union with null.
const RateLimit = Type.Unsafe<number | null>({ type: ['integer', 'null'], minimum: 1, maximum: 1_000_000 });
const Label = Type.String({ minLength: 1, maxLength: 200 });
const Permissions = Type.Array(Type.String(), { minItems: 1, maxItems: 8 });
const CreateBody = Type.Object({ label: Label, permissions: Permissions, rate_limit: Type.Optional(RateLimit) },
  { additionalProperties: false });
const UpdateBody = Type.Object({
  label: Type.Optional(Label), permissions: Type.Optional(Permissions), rate_limit: Type.Optional(RateLimit),
}, { additionalProperties: false, minProperties: 1 });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

/** A key as lists show it: the key shortened, never the secret. */
const listed = (k: ApiKeyInfo) => ({ ...k, key: keyPrefix(k.key) });

export async function keyAdminRoutes(app: FastifyInstance, opts: { core: Core }): Promise<void> {
  const { core } = opts;
  app.setSchemaErrorFormatter(humanValidationError);

  // rate_limit: what a key without its own limit gets, and the window both apply to (the edit form says so);
  // api_url: where the REST API answers, for the ready-to-paste curl line shown with a new key.
  app.get('/keys', async () => ({
    keys: (await listApiKeys(core)).map(listed),
    rate_limit: { default: core.config.rateLimit, window_s: core.config.rateLimitWindowS },
    api_url: `${core.config.baseUrl}${apiRoot(core.config)}`,
  }));

  app.post('/keys', { schema: { body: CreateBody } }, async (req, reply) => {
    const body = req.body as { label: string; permissions: string[]; rate_limit?: number | null };
    const created = await createApiKey(core, {
      label: body.label, permissions: body.permissions, rateLimit: body.rate_limit ?? null,
    }, requestActor(req));
    return reply.code(201).send(created);
  });

  app.patch('/keys/:id', { schema: { params: IdParams, body: UpdateBody } }, async (req) => {
    const body = req.body as { label?: string; permissions?: string[]; rate_limit?: number | null };
    const { id } = req.params as { id: string };
    const updated = await updateApiKey(core, id, {
      label: body.label, permissions: body.permissions, rateLimit: body.rate_limit,
    }, requestActor(req));
    return listed(updated);
  });

  for (const [name, active] of [['disable', false], ['enable', true]] as const) {
    app.post(`/keys/:id/${name}`, { schema: { params: IdParams } }, async (req) => {
      const key = await setApiKeyActive(core, (req.params as { id: string }).id, active, requestActor(req));
      return listed(key);
    });
  }

  app.delete('/keys/:id', { schema: { params: IdParams } }, async (req, reply) => {
    // By id or key: the log names it by id.
    await deleteApiKey(core, (req.params as { id: string }).id, requestActor(req));
    return reply.code(204).send();
  });

  app.get('/keys/usage', async () => {
    await apiServices(core).usage.flush(); // include this process's unflushed counts
    return { days: 7, keys: await usageByKey(core, 7) };
  });

  // One key's calls over a range by status class (2xx, 4xx, 429, 5xx), from hourly counters: the console's chart.
  app.get('/keys/:id/usage/series', { schema: { params: IdParams } }, async (req) => {
    await apiServices(core).usage.flush();
    return keyUsageSeries(core, (req.params as { id: string }).id, (req.query as { range?: unknown }).range);
  });
}
