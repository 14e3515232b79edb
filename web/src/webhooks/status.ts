import type { Webhook } from '../types';

// The management API marks an admin's own switch-off with this reason; any other reason means Waypost disabled it.
export const DISABLED_BY_ADMIN = 'Disabled by an admin.';

export const isAutoDisabled = (w: Webhook) =>
  !w.active && !!w.disabled_reason && w.disabled_reason !== DISABLED_BY_ADMIN;
