// Who an erasure or an export is for: `{email}` or `{customer_id}` (or both), checked the same way at every door.
import { badRequest, invalidParameter } from '../errors.js';
import type { PersonQuery } from './person.js';

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function personQuery(body: unknown): PersonQuery {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const unknown = Object.keys(b).filter((k) => k !== 'email' && k !== 'customer_id');
  if (unknown.length > 0) throw invalidParameter(unknown[0], 'is not a field (expected email or customer_id)');
  let email: string | null = null;
  if (b.email !== undefined && b.email !== null) {
    if (typeof b.email !== 'string' || b.email.length > 254 || !EMAIL.test(b.email.trim())) {
      throw invalidParameter('email', 'must be an e-mail address');
    }
    email = b.email.trim().toLowerCase();
  }
  let customerId: number | null = null;
  if (b.customer_id !== undefined && b.customer_id !== null) {
    const n = typeof b.customer_id === 'string' && /^\d+$/.test(b.customer_id) ? Number(b.customer_id) : b.customer_id;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) {
      throw invalidParameter('customer_id', 'must be a positive integer');
    }
    customerId = n;
  }
  if (email === null && customerId === null) {
    throw badRequest('missing_person', 'Name the person: "email", "customer_id", or both.');
  }
  return { email, customerId };
}
