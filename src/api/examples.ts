// Example values of the REST API's path and query parameters, published in the OpenAPI document (and so in the
// Postman collection and generated clients). Each names a record of the demo seed (src/demo/catalogue.ts) and
// answers 200 with at least one record against it (test/api/clients-postman.test.ts tries every one alone).
import type { ApiResource } from '../records/schemas.js';
import { encodeCursor } from './cursor.js';

type Examples = Record<string, string | number>;

/** A cursor as a `Link: rel="next"` would give it, after this id in the default order (id, descending). */
const after = (id: number) => encodeCursor({ orderby: 'id', order: 'desc', value: id, id });

const COMMON: Examples = { perpage: 20, page: 2, order: 'asc', modified_after: '2024-12-01T00:00:00Z' };

// The demo's booking 1001 is Diego Novak's (customer 26), on trip 11 (Dolomites Hut-to-Hut); payment 5001 pays it.
const EXAMPLES: Record<ApiResource, { id: number; query: Examples }> = {
  bookings: {
    id: 1001,
    query: {
      after: after(1100), search: 'dolomites', orderby: 'created_at', status: 'booked',
      customer_id: 26, trip_id: 11, email: 'diego.novak@example.com',
    },
  },
  trips: { id: 1, query: { after: after(6), search: 'douro', orderby: 'title', status: 'publish' } },
  customers: {
    id: 26, query: { after: after(40), search: 'novak', orderby: 'email', email: 'diego.novak@example.com' },
  },
  payments: {
    id: 5001,
    query: { after: after(5100), search: 'stripe', orderby: 'created_at', status: 'completed', booking_id: 1001 },
  },
};

/** The example of a parameter of a path under the API root (`/bookings/{id}`), or undefined if none is known. */
export function parameterExample(path: string, where: 'path' | 'query', name: string): string | number | undefined {
  const resource = path.split('/')[1] as ApiResource;
  const examples = EXAMPLES[resource];
  if (!examples) return undefined;
  if (where === 'path') return name === 'id' ? examples.id : undefined;
  return examples.query[name] ?? COMMON[name];
}
