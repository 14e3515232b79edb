// The fields a payload filter may name, per event type, read from the record schemas (src/records/schemas.ts): the
// envelope's `data.…` (the record the event carries) and, for the update events, `previous_attributes.…`. Arrays are
// walked with `[]` (`data.trips[].trip_id`). Save-time validation and the console's suggestions use this list.
import type { TSchema } from '@sinclair/typebox';
import { PUBLIC_SCHEMAS } from '../../records/schemas.js';
import { EVENT_RESOURCE, EVENT_TYPE_NAMES, type EventType } from '../catalog.js';

/** What a field holds: `decimal` is an amount sent as a string ("2480.00"), compared as a number. */
export type FieldKind = 'string' | 'decimal' | 'number' | 'boolean' | 'object' | 'array';

export interface FilterField {
  path: string;
  kind: FieldKind;
  /** The values a string field can take (statuses), when the schema lists them. */
  values?: string[];
  /** The event types (of those asked about) whose payload has this field. */
  events: EventType[];
}

/** Events that carry `previous_attributes` (the changed fields' values before the write). */
const UPDATE_EVENTS: readonly EventType[] = ['booking.updated', 'booking.canceled', 'booking.completed'];

type Schema = TSchema & {
  type?: string; anyOf?: Schema[]; properties?: Record<string, Schema>; items?: Schema; enum?: string[];
  pattern?: string;
};

function kindOf(schema: Schema): { kind: FieldKind; values?: string[] } | null {
  if (schema.anyOf) {
    const inner = schema.anyOf.find((s) => s.type !== 'null');
    return inner ? kindOf(inner) : null;
  }
  switch (schema.type) {
    case 'string':
      if (schema.enum) return { kind: 'string', values: [...schema.enum] };
      return { kind: schema.pattern?.startsWith('^-?\\d') ? 'decimal' : 'string' };
    case 'integer': case 'number': return { kind: 'number' };
    case 'boolean': return { kind: 'boolean' };
    case 'object': return { kind: 'object' };
    case 'array': return { kind: 'array' };
    default: return null;
  }
}

const nonNull = (schema: Schema): Schema => schema.anyOf?.find((s) => s.type !== 'null') ?? schema;

/** Every path under `prefix` in a schema: objects by key, arrays both as a whole and by `[]`. */
function walk(schema: Schema, prefix: string, out: Map<string, Omit<FilterField, 'events'>>): void {
  const kind = kindOf(schema);
  if (kind) out.set(prefix, { path: prefix, ...kind });
  const s = nonNull(schema);
  if (s.type === 'object' && s.properties) {
    for (const [key, child] of Object.entries(s.properties)) walk(child, `${prefix}.${key}`, out);
  } else if (s.type === 'array' && s.items) {
    walk(s.items, `${prefix}[]`, out);
  }
}

const cache = new Map<EventType, Map<string, Omit<FilterField, 'events'>>>();

function fieldsOf(type: EventType): Map<string, Omit<FilterField, 'events'>> {
  let fields = cache.get(type);
  if (!fields) {
    fields = new Map();
    const schema = PUBLIC_SCHEMAS[EVENT_RESOURCE[type]] as Schema;
    walk(schema, 'data', fields);
    fields.delete('data');
    if (UPDATE_EVENTS.includes(type)) {
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        walk(child, `previous_attributes.${key}`, fields);
      }
    }
    cache.set(type, fields);
  }
  return fields;
}

/** The fields of the given event types (all of them when none is given), each with the types that have it. */
export function filterFields(types: readonly EventType[] = EVENT_TYPE_NAMES): FilterField[] {
  const merged = new Map<string, FilterField>();
  for (const type of types) {
    for (const field of fieldsOf(type).values()) {
      const seen = merged.get(field.path);
      if (seen) {
        seen.events.push(type);
        // One path, two records (a booking's status, a payment's): either's values are allowed.
        if (seen.values && field.values) seen.values = [...new Set([...seen.values, ...field.values])];
      } else {
        merged.set(field.path, { ...field, ...(field.values ? { values: [...field.values] } : {}), events: [type] });
      }
    }
  }
  return [...merged.values()];
}
