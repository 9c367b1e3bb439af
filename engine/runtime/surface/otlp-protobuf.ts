// OTLP/HTTP logs in protobuf (issue 30): an ExportLogsServiceRequest read
// from its wire bytes into the shape OTLP/JSON gives the same request
// (opentelemetry-proto logs/v1, common/v1, resource/v1; the OTLP
// specification's JSON mapping: 64-bit integers as decimal strings, trace
// and span ids as hex, enum values as numbers), so both encodings flatten
// through one path. Only the fields logs use are read; unknown fields are
// skipped by their wire type, as protobuf requires. Malformed input (a
// truncated field, a length past the end, a wire type logs never use where
// a known field stands, nesting deeper than OTLP allows) is an error with
// the byte offset, never a partial result.

export class ProtobufError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} (at byte ${offset})`);
  }
}

const MAX_DEPTH = 64;
type Obj = Record<string, unknown>;

class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError('truncated varint', this.pos);
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
    throw new ProtobufError('varint longer than 10 bytes', this.pos);
  }

  /** A varint of at most 4 bytes (28 bits: every tag and length OTLP sends), as a number; undefined (nothing read) for a longer one. */
  private small(): number | undefined {
    let v = 0;
    for (let i = 0, p = this.pos; i < 4; i++, p++) {
      if (p >= this.end) return undefined;
      const b = this.buf[p];
      v |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) {
        this.pos = p + 1;
        return v;
      }
    }
    return undefined;
  }

  uint(): number {
    const v = this.small();
    if (v !== undefined) return v;
    return Number(BigInt.asUintN(32, this.varint()));
  }

  fixed(bytes: 4 | 8): bigint {
    if (this.pos + bytes > this.end) throw new ProtobufError(`truncated fixed${bytes * 8}`, this.pos);
    let v = 0n;
    for (let i = bytes - 1; i >= 0; i--) v = (v << 8n) | BigInt(this.buf[this.pos + i]);
    this.pos += bytes;
    return v;
  }

  double(): number {
    if (this.pos + 8 > this.end) throw new ProtobufError('truncated double', this.pos);
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }

  bytes(): Reader {
    const fast = this.small();
    const big = fast === undefined ? this.varint() : undefined;
    if (big !== undefined && big > BigInt(this.end - this.pos)) throw new ProtobufError(`length ${big} runs past the end`, this.pos);
    const len = fast ?? Number(big);
    if (len > this.end - this.pos) throw new ProtobufError(`length ${len} runs past the end`, this.pos);
    const r = new Reader(this.buf, this.pos, this.pos + len);
    this.pos += len;
    return r;
  }

  skip(wire: number, at: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.fixed(8);
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.fixed(4);
    else throw new ProtobufError(`wire type ${wire} (groups are not part of OTLP)`, at);
  }

  /** Each field of this message: its number and wire type, read by `on` or skipped. */
  fields(on: (field: number, wire: number, at: number) => boolean): void {
    while (!this.done) {
      const at = this.pos;
      const key = this.uint();
      const field = key >>> 3;
      const wire = key & 7;
      if (field === 0) throw new ProtobufError('field number 0', at);
      if (!on(field, wire, at)) this.skip(wire, at);
    }
  }
}

const text = new TextDecoder('utf-8', { fatal: true });
function str(r: Reader): string {
  try {
    return text.decode(r.buf.subarray(r.pos, r.end));
  } catch {
    throw new ProtobufError('a string field is not UTF-8', r.pos);
  }
}
const hex = (r: Reader) => Buffer.from(r.buf.subarray(r.pos, r.end)).toString('hex');
const base64 = (r: Reader) => Buffer.from(r.buf.subarray(r.pos, r.end)).toString('base64');

/** A field of the expected wire type, else the message is malformed. */
function want(wire: number, expected: number, at: number, what: string): void {
  if (wire !== expected) throw new ProtobufError(`${what} has wire type ${wire}, expected ${expected}`, at);
}

function anyValue(r: Reader, depth: number): Obj {
  if (depth > MAX_DEPTH) throw new ProtobufError('values nested too deep', r.pos);
  let v: Obj = {};
  r.fields((f, w, at) => {
    if (f === 1) {
      want(w, 2, at, 'AnyValue.string_value');
      v = { stringValue: str(r.bytes()) };
    } else if (f === 2) {
      want(w, 0, at, 'AnyValue.bool_value');
      v = { boolValue: r.varint() !== 0n };
    } else if (f === 3) {
      want(w, 0, at, 'AnyValue.int_value');
      v = { intValue: BigInt.asIntN(64, r.varint()).toString() };
    } else if (f === 4) {
      want(w, 1, at, 'AnyValue.double_value');
      v = { doubleValue: r.double() };
    } else if (f === 5) {
      want(w, 2, at, 'AnyValue.array_value');
      v = { arrayValue: { values: repeated(r.bytes(), 1, (x) => anyValue(x, depth + 1)) } };
    } else if (f === 6) {
      want(w, 2, at, 'AnyValue.kvlist_value');
      v = { kvlistValue: { values: repeated(r.bytes(), 1, (x) => keyValue(x, depth + 1)) } };
    } else if (f === 7) {
      want(w, 2, at, 'AnyValue.bytes_value');
      v = { bytesValue: base64(r.bytes()) };
    } else return false;
    return true;
  });
  return v;
}

function repeated<T>(r: Reader, field: number, read: (x: Reader) => T): T[] {
  const out: T[] = [];
  r.fields((f, w, at) => {
    if (f !== field) return false;
    want(w, 2, at, `field ${field}`);
    out.push(read(r.bytes()));
    return true;
  });
  return out;
}

function keyValue(r: Reader, depth: number): Obj {
  const kv: Obj = { key: '' };
  r.fields((f, w, at) => {
    if (f === 1) {
      want(w, 2, at, 'KeyValue.key');
      kv.key = str(r.bytes());
    } else if (f === 2) {
      want(w, 2, at, 'KeyValue.value');
      kv.value = anyValue(r.bytes(), depth + 1);
    } else return false;
    return true;
  });
  return kv;
}

function attributesOf(r: Reader, field: number, into: Obj): (f: number, w: number, at: number) => boolean {
  return (f, w, at) => {
    if (f !== field) return false;
    want(w, 2, at, 'attributes');
    ((into.attributes ??= []) as Obj[]).push(keyValue(r.bytes(), 0));
    return true;
  };
}

function logRecord(r: Reader): Obj {
  const rec: Obj = {};
  const attrs = attributesOf(r, 6, rec);
  r.fields((f, w, at) => {
    if (f === 1) {
      want(w, 1, at, 'LogRecord.time_unix_nano');
      rec.timeUnixNano = r.fixed(8).toString();
    } else if (f === 11) {
      want(w, 1, at, 'LogRecord.observed_time_unix_nano');
      rec.observedTimeUnixNano = r.fixed(8).toString();
    } else if (f === 2) {
      want(w, 0, at, 'LogRecord.severity_number');
      rec.severityNumber = r.uint();
    } else if (f === 3) {
      want(w, 2, at, 'LogRecord.severity_text');
      rec.severityText = str(r.bytes());
    } else if (f === 5) {
      want(w, 2, at, 'LogRecord.body');
      rec.body = anyValue(r.bytes(), 0);
    } else if (f === 8) {
      want(w, 5, at, 'LogRecord.flags');
      rec.flags = Number(r.fixed(4));
    } else if (f === 9) {
      want(w, 2, at, 'LogRecord.trace_id');
      rec.traceId = hex(r.bytes());
    } else if (f === 10) {
      want(w, 2, at, 'LogRecord.span_id');
      rec.spanId = hex(r.bytes());
    } else if (f === 12) {
      want(w, 2, at, 'LogRecord.event_name');
      rec.eventName = str(r.bytes());
    } else return attrs(f, w, at);
    return true;
  });
  return rec;
}

/** How many more LogRecords an export may have decoded (`left`); past it they are only counted (`over`), never built. */
type RecordBudget = { left: number; over: number };

function scopeLogs(r: Reader, budget: RecordBudget): Obj {
  const sl: Obj = { logRecords: [] };
  r.fields((f, w, at) => {
    if (f === 1) {
      want(w, 2, at, 'ScopeLogs.scope');
      const scope: Obj = {};
      const sr = r.bytes();
      const attrs = attributesOf(sr, 3, scope);
      sr.fields((g, gw, gat) => {
        if (g === 1) {
          want(gw, 2, gat, 'scope.name');
          scope.name = str(sr.bytes());
        } else if (g === 2) {
          want(gw, 2, gat, 'scope.version');
          scope.version = str(sr.bytes());
        } else return attrs(g, gw, gat);
        return true;
      });
      sl.scope = scope;
    } else if (f === 2) {
      want(w, 2, at, 'ScopeLogs.log_records');
      const bytes = r.bytes();
      if (budget.left > 0) {
        budget.left--;
        (sl.logRecords as Obj[]).push(logRecord(bytes));
      } else budget.over++;
    } else return false;
    return true;
  });
  return sl;
}

function resourceLogs(r: Reader, budget: RecordBudget): Obj {
  const rl: Obj = { scopeLogs: [] };
  r.fields((f, w, at) => {
    if (f === 1) {
      want(w, 2, at, 'ResourceLogs.resource');
      const res: Obj = {};
      const rr = r.bytes();
      rr.fields(attributesOf(rr, 1, res));
      rl.resource = res;
    } else if (f === 2) {
      want(w, 2, at, 'ResourceLogs.scope_logs');
      (rl.scopeLogs as Obj[]).push(scopeLogs(r.bytes(), budget));
    } else return false;
    return true;
  });
  return rl;
}

/**
 * An ExportLogsServiceRequest's bytes as OTLP/JSON's object; throws ProtobufError on malformed input. At most
 * `maxRecords` LogRecords are built; `over` counts the rest (their framing still read, their contents never).
 */
export function decodeLogsRequest(bytes: Uint8Array, maxRecords = Number.POSITIVE_INFINITY): { resourceLogs: Obj[]; over: number } {
  const r = new Reader(bytes, 0, bytes.length);
  const budget: RecordBudget = { left: maxRecords, over: 0 };
  return { resourceLogs: repeated(r, 1, (x) => resourceLogs(x, budget)), over: budget.over };
}
