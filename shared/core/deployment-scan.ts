/**
 * The save path's check of a deployment sent as bytes, without building it. Parsing a 40 MB state into objects
 * costs about a second and two to three times its size in memory, only to read a dozen fields per resource and
 * throw the rest away. Instead the bytes are validated as JSON in one pass (`scanJsonObject`), the few members the
 * check needs are delimited, and only those small values are parsed: `version`, `features`, the deployment's
 * `metadata`, and per resource the fields `findIntegrityViolation` reads.
 *
 * It only ever accepts. Whenever anything is not as a sound state has it (not JSON, a wrong shape, a resource that
 * is not an object, an integrity violation), it answers `undefined` and the caller runs `checkDeploymentBytes`,
 * the full parse, which rejects with the message it always gave. So the verdict is the full check's.
 */
import { declaresIntegrityError, findIntegrityViolation, type IntegrityResource } from './deployment-integrity.js';
import { scanJsonObject } from './json-scan.js';

/** The members of a resource the integrity check reads. */
const CHECKED_FIELDS = [
  'urn',
  'type',
  'id',
  'custom',
  'delete',
  'pendingReplacement',
  'provider',
  'parent',
  'dependencies',
  'propertyDependencies',
  'deletedWith',
  'replaceWith',
  'aliases',
] as const;

/** The checked field names as bytes, so member names are compared without building a string for each. */
const CHECKED_NAMES = CHECKED_FIELDS.map((field) => ({ field, bytes: Buffer.from(`"${field}"`) }));

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** Schema versions a running update may save (as `checkDeploymentDocument`). */
const MIN_VERSION = 1;
const MAX_VERSION = 4;

type Span = { start: number; end: number };

function parseSpan(buf: Buffer, span: Span): unknown {
  return JSON.parse(buf.toString('utf8', span.start, span.end));
}

// The walkers below run over bytes `scanJsonObject` has already validated, so they only delimit: one tight loop per
// byte, no native call per string (40 MB of state holds millions of strings).

function skipSpace(buf: Buffer, i: number): number {
  for (;;) {
    const b = buf[i];
    if (b !== SPACE && b !== LF && b !== CR && b !== TAB) return i;
    i += 1;
  }
}

/** Index just past the string starting at `i`. */
function stringEnd(buf: Buffer, i: number): number {
  i += 1;
  for (;;) {
    const b = buf[i];
    if (b === QUOTE) return i + 1;
    i += b === BACKSLASH ? 2 : 1;
  }
}

/** Index just past the value starting at `i`. */
function valueEnd(buf: Buffer, i: number): number {
  const first = buf[i];
  if (first === QUOTE) return stringEnd(buf, i);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    for (;;) {
      const b = buf[i];
      if (b === undefined || b === COMMA || b === CLOSE_OBJECT || b === CLOSE_ARRAY || b === SPACE || b === LF || b === CR || b === TAB) return i;
      i += 1;
    }
  }
  let depth = 0;
  for (;;) {
    const b = buf[i];
    if (b === QUOTE) {
      i = stringEnd(buf, i);
      continue;
    }
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth += 1;
    else if ((b === CLOSE_OBJECT || b === CLOSE_ARRAY) && --depth === 0) return i + 1;
    i += 1;
  }
}

/** Whether the string at `buf[start, end)` holds an escape. */
function escapedIn(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] === BACKSLASH) return true;
  return false;
}

/**
 * Walks the members of the object at `start`, calling `visit` with each name's span (quotes included) and value
 * span; returns the index just past the object.
 */
function walkObject(buf: Buffer, start: number, visit: (name: Span, value: Span) => void): number {
  let i = skipSpace(buf, start + 1);
  if (buf[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    const name = { start: i, end: stringEnd(buf, i) };
    i = skipSpace(buf, skipSpace(buf, name.end) + 1);
    const value = { start: i, end: valueEnd(buf, i) };
    visit(name, value);
    i = skipSpace(buf, value.end);
    if (buf[i] !== COMMA) return i + 1;
    i = skipSpace(buf, i + 1);
  }
}

/** Which checked field the member name at `name` is, if any, without building a string for names that are not. */
function checkedField(buf: Buffer, name: Span): (typeof CHECKED_FIELDS)[number] | undefined {
  if (escapedIn(buf, name.start, name.end)) {
    const decoded = parseSpan(buf, name) as string;
    return CHECKED_FIELDS.find((field) => field === decoded);
  }
  const length = name.end - name.start;
  for (const { field, bytes } of CHECKED_NAMES) {
    if (bytes.length === length && buf.compare(bytes, 0, length, name.start, name.end) === 0) return field;
  }
  return undefined;
}

/**
 * The number of resources of a sound deployment document given as bytes, or `undefined` when the bytes need the
 * full check (which then accepts or rejects them exactly as before).
 */
export function soundDeploymentResourceCount(bytes: Uint8Array): number | undefined {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let top: Map<string, Span>;
  try {
    top = scanJsonObject(buf);
  } catch {
    return undefined;
  }
  const version = top.get('version');
  const versionValue = version ? parseSpan(buf, version) : undefined;
  if (!Number.isInteger(versionValue) || (versionValue as number) < MIN_VERSION || (versionValue as number) > MAX_VERSION) {
    return undefined;
  }
  const features = top.get('features');
  if (features) {
    const value = parseSpan(buf, features);
    if (value !== null && (!Array.isArray(value) || value.some((f) => typeof f !== 'string'))) return undefined;
  }
  const deployment = top.get('deployment');
  if (!deployment || buf[deployment.start] !== OPEN_OBJECT) return undefined;
  let resources: Span | undefined;
  let metadata: Span | undefined;
  walkObject(buf, deployment.start, (name, value) => {
    const decoded = parseSpan(buf, name);
    if (decoded === 'resources') resources = value;
    else if (decoded === 'metadata') metadata = value;
  });
  if (!resources) return 0;
  if (buf[resources.start] !== OPEN_ARRAY) return buf.toString('utf8', resources.start, resources.end) === 'null' ? 0 : undefined;
  const declared = metadata !== undefined && declaresIntegrityError(parseSpan(buf, metadata) as { integrity_error?: unknown } | undefined);
  const checked: IntegrityResource[] = [];
  let i = skipSpace(buf, resources.start + 1);
  if (buf[i] === CLOSE_ARRAY) return 0;
  for (;;) {
    const resource: Record<string, unknown> = {};
    if (declared) {
      i = valueEnd(buf, i); // a declared broken state is stored unchecked: only its resources are counted
    } else {
      if (buf[i] !== OPEN_OBJECT) return undefined;
      i = walkObject(buf, i, (name, value) => {
        const field = checkedField(buf, name);
        // A repeated name keeps its last value, as JSON.parse does.
        if (field) resource[field] = parseSpan(buf, value);
      });
    }
    checked.push(resource);
    i = skipSpace(buf, i);
    if (buf[i] !== COMMA) break;
    i = skipSpace(buf, i + 1);
  }
  if (declared) return checked.length;
  return findIntegrityViolation(checked) === undefined ? checked.length : undefined;
}
