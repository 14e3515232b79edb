// The table the alerts capability owns.
import type { AlertView } from './views.js';

/** A stored alert (id `alt_…`): the console's AlertView without the webhook's name, which the log joins in. */
export type AlertRow = Omit<AlertView, 'webhook_name'>;

export interface AlertTables {
  alerts: AlertRow;
}
