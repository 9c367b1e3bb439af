// Reads the schemas' `x-aep-capture` annotations into a small tree the gate
// walks. A property the schema does not annotate is `full` (the safe default);
// a descriptor may declare a lower gate for its own additions.
import { payloadSchema, type CaptureLevel } from '../aep/schemas.ts';

export interface FieldNote {
  level: CaptureLevel | undefined;
  /** metadata-gated "by exception": content at redacted+, a structural stand-in at metadata */
  byException: boolean;
  props?: Map<string, FieldNote>;
  items?: FieldNote;
}

function noteOf(schema: any): FieldNote {
  const note: FieldNote = {
    level: schema?.['x-aep-capture'],
    byException: typeof schema?.$comment === 'string' && /by exception/i.test(schema.$comment),
  };
  if (schema?.properties) {
    note.props = new Map();
    for (const [k, v] of Object.entries(schema.properties)) note.props.set(k, noteOf(v));
  }
  if (schema?.items && typeof schema.items === 'object' && !Array.isArray(schema.items)) note.items = noteOf(schema.items);
  return note;
}

const cache = new Map<string, FieldNote | null>();
/** The annotation tree of a type's payload, or null for types without a schema (x.*). */
export function annotationsFor(type: string): FieldNote | null {
  let n = cache.get(type);
  if (n === undefined) {
    const s = payloadSchema(type);
    n = s ? noteOf(s) : null;
    cache.set(type, n);
  }
  return n;
}
