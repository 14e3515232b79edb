// Public package entry: `import { createWaypost, verifySignature } from 'waypost'`.
export { createWaypost, type Waypost, type WaypostOptions } from './sdk.js';
export type { Filters, Clock } from './core.js';
export type { Config } from './config.js';
export type { BatchOperation, BatchResult } from './host/batch.js';
export type { Booking, Customer, Payment, Trip, Enquiry, Review, Resource } from './records/schemas.js';
export { verifySignature } from './webhooks/sign.js';
