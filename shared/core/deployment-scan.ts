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
import { objectMembers, skipSpace, valueEnd } from './checkpoint-delta.js';
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

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** Schema versions a running update may save (as `checkDeploymentDocument`). */
const MIN_VERSION = 1;
const MAX_VERSION = 4;

type Span = { start: number; end: number };

function parseSpan(buf: Buffer, span: Span): unknown {
  return JSON.parse(buf.toString('utf8', span.start, span.end));
}

/** The spans of the elements of the (already validated) JSON array at `span`. */
function arrayElements(buf: Buffer, span: Span): Span[] {
  const elements: Span[] = [];
  let i = skipSpace(buf, span.start + 1);
  if (buf[i] === CLOSE_ARRAY) return elements;
  for (;;) {
    const end = valueEnd(buf, i);
    elements.push({ start: i, end });
    i = skipSpace(buf, end);
    if (buf[i] !== COMMA) return elements;
    i = skipSpace(buf, i + 1);
  }
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
  const members = objectMembers(buf, deployment.start, deployment.end);
  const resources = members.get('resources');
  if (!resources) return 0;
  if (buf[resources.start] !== OPEN_ARRAY) return buf.toString('utf8', resources.start, resources.end) === 'null' ? 0 : undefined;
  const elements = arrayElements(buf, resources);
  const metadata = members.get('metadata');
  if (metadata && declaresIntegrityError(parseSpan(buf, metadata) as { integrity_error?: unknown } | undefined)) {
    return elements.length;
  }
  const checked: IntegrityResource[] = [];
  for (const element of elements) {
    if (buf[element.start] !== OPEN_OBJECT) return undefined;
    const fields = objectMembers(buf, element.start, element.end);
    const resource: Record<string, unknown> = {};
    for (const field of CHECKED_FIELDS) {
      const span = fields.get(field);
      if (span) resource[field] = parseSpan(buf, span);
    }
    checked.push(resource);
  }
  return findIntegrityViolation(checked) === undefined ? checked.length : undefined;
}
