// Sends e-mail through SMTP_URL with nodemailer; one pooled transport per configuration.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.js';

const transports = new WeakMap<Config, Transporter>();

function transportFor(config: Config): Transporter {
  let t = transports.get(config);
  if (!t) {
    t = nodemailer.createTransport(config.smtpUrl as string);
    transports.set(config, t);
  }
  return t;
}

/** The sender: `from=` in SMTP_URL's query, else no-reply at the base URL's host. */
export function senderAddress(config: Pick<Config, 'smtpUrl' | 'baseUrl' | 'serviceName'>): string {
  const from = config.smtpUrl ? new URL(config.smtpUrl).searchParams.get('from') : null;
  if (from) return from;
  const host = new URL(config.baseUrl).hostname;
  const domain = /^[\d.]+$|:|^\[/.test(host) ? 'localhost' : host;
  return `"${config.serviceName}" <no-reply@${domain}>`;
}

export async function sendMail(config: Config, message: { to: string; subject: string; text: string }): Promise<void> {
  await transportFor(config).sendMail({ from: senderAddress(config), ...message });
}

export function closeMailer(config: Config): void {
  transports.get(config)?.close();
  transports.delete(config);
}
