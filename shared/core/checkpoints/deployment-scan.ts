/**
 * The save path's check of a deployment sent as bytes, without building it and without holding it whole. Parsing a
 * 40 MB state into objects costs about a second and two to three times its size in memory, only to read a dozen
 * fields per resource and throw the rest away. Instead the bytes are validated as JSON as they arrive
 * (`JsonStreamScanner`, chunk by chunk as they are inflated), each resource is delimited and checked on its own, and
 * only the small values the check needs are parsed: `version`, `features`, the deployment's `metadata`, and per
 * resource the fields the integrity check reads. What it keeps between chunks is one resource's bytes and what later
 * resources may refer to (`IntegrityWalk`: URNs seen, providers, URNs live), as bytes off the JS heap.
 *
 * It only ever accepts. Whenever anything is not as a sound state has it (not JSON, a wrong shape, a resource that
 * is not an object, an integrity violation), it answers `undefined` and the caller runs `checkDeploymentBytes`,
 * the full parse, which rejects with the message it always gave. So the verdict is the full check's.
 */
import { declaresIntegrityError, IntegrityWalk, type IntegrityResource } from './deployment-integrity.js';
import { CompactStringSet } from './compact-string-set.js';
import { JsonStreamScanner, type JsonScanListener } from './json-scan.js';
import {
  BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COMMA, CR, LF, OPEN_ARRAY, OPEN_OBJECT, QUOTE, SPACE, TAB,
} from './json-bytes.js';

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

/** The only JSON value starting with `n` is `null` (the scanner has validated it). */
const NULL_FIRST_BYTE = 0x6e;

/** Schema versions a running update may save (as `checkDeploymentDocument`). */
const MIN_VERSION = 1;
const MAX_VERSION = 4;

function parseRange(buf: Buffer, start: number, end: number): unknown {
  return JSON.parse(buf.toString('utf8', start, end));
}

// The walkers below run over the bytes of one resource the scanner has already validated, so they only delimit: one
// tight loop per byte, no native call per string (40 MB of state holds millions of strings).

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

/** Whether `buf[start, end)` holds an escape. */
function escapedIn(buf: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (buf[i] === BACKSLASH) return true;
  return false;
}

/** Which checked field the member name at `buf[start, end)` (quotes included) is, without building a string for names that are not. */
function checkedField(buf: Buffer, start: number, end: number): (typeof CHECKED_FIELDS)[number] | undefined {
  if (escapedIn(buf, start, end)) {
    const decoded = parseRange(buf, start, end) as string;
    return CHECKED_FIELDS.find((field) => field === decoded);
  }
  const length = end - start;
  for (const { field, bytes } of CHECKED_NAMES) {
    if (bytes.length === length && buf.compare(bytes, 0, length, start, end) === 0) return field;
  }
  return undefined;
}

/** The fields the integrity check reads of the resource object `buf` holds (validated JSON). */
function checkedResource(buf: Buffer): IntegrityResource {
  const resource: Record<string, unknown> = {};
  let i = skipSpace(buf, 1);
  if (buf[i] === CLOSE_OBJECT) return resource;
  for (;;) {
    const nameEnd = stringEnd(buf, i);
    const field = checkedField(buf, i, nameEnd);
    const start = skipSpace(buf, skipSpace(buf, nameEnd) + 1);
    const end = valueEnd(buf, start);
    // A repeated name keeps its last value, as JSON.parse does.
    if (field) resource[field] = parseRange(buf, start, end);
    i = skipSpace(buf, end);
    if (buf[i] !== COMMA) return resource;
    i = skipSpace(buf, i + 1);
  }
}

/** What the scan knows of one `deployment` member (the last one counts, as JSON.parse keeps the last). */
interface DeploymentSeen {
  isObject: boolean;
  /** Its `resources` member: absent, `null`, a list, or anything else. */
  resources: 'absent' | 'null' | 'list' | 'other';
  /** Resources in that list so far. */
  count: number;
  /** Whether a resource was not an object or broke an integrity rule (fine only in a declared broken state). */
  unsound: boolean;
  /** The check of that list, from its start. */
  walk: IntegrityWalk | undefined;
  /** Whether its `metadata` records a known integrity error. */
  declared: boolean;
}

/**
 * A deployment document fed as chunks (`push`); `end` gives its resource count when it is sound, or `undefined`
 * when the full check must decide.
 */
export class DeploymentScan implements JsonScanListener {
  private readonly scanner = new JsonStreamScanner(this);
  private broken = false;
  /** The member of the top-level object, and of the deployment object, whose value is being read. */
  private topName: string | undefined;
  private deploymentName: string | undefined;
  private inDeployment = false;
  private inResources = false;
  /** Start of the value being kept whole: a small member the check parses, or one resource. */
  private keptStart = 0;
  private version: unknown;
  private features: { value: unknown } | undefined;
  private deployment: DeploymentSeen | undefined;

  push(chunk: Uint8Array): void {
    if (this.broken) return;
    try {
      this.scanner.push(chunk);
    } catch {
      this.broken = true;
    }
  }

  end(): number | undefined {
    if (this.broken) return undefined;
    try {
      this.scanner.end();
    } catch {
      return undefined;
    }
    const version = this.version;
    if (!Number.isInteger(version) || (version as number) < MIN_VERSION || (version as number) > MAX_VERSION) return undefined;
    const features = this.features?.value;
    if (this.features && features !== null && (!Array.isArray(features) || features.some((f) => typeof f !== 'string'))) {
      return undefined;
    }
    const deployment = this.deployment;
    if (!deployment?.isObject) return undefined;
    if (deployment.resources === 'absent' || deployment.resources === 'null') return 0;
    if (deployment.resources === 'other') return undefined;
    return deployment.unsound && !deployment.declared ? undefined : deployment.count;
  }

  name(start: number, end: number, depth: number): void {
    if (depth === 1) this.topName = parseRange(this.scanner.bytes(start, end), 0, end - start) as string;
    else if (depth === 2 && this.inDeployment) this.deploymentName = parseRange(this.scanner.bytes(start, end), 0, end - start) as string;
  }

  valueStart(start: number, depth: number, firstByte: number): void {
    if (depth === 1) {
      if (this.topName === 'deployment') {
        this.inDeployment = firstByte === OPEN_OBJECT;
        this.deployment = {
          isObject: this.inDeployment,
          resources: 'absent',
          count: 0,
          unsound: false,
          walk: undefined,
          declared: false,
        };
      } else if (this.topName === 'version' || this.topName === 'features') {
        this.keepFrom(start);
      }
    } else if (depth === 2 && this.inDeployment) {
      const deployment = this.deployment!;
      if (this.deploymentName === 'resources') {
        deployment.resources = firstByte === OPEN_ARRAY ? 'list' : firstByte === NULL_FIRST_BYTE ? 'null' : 'other';
        deployment.count = 0;
        deployment.unsound = false;
        deployment.walk = new IntegrityWalk(undefined, () => new CompactStringSet());
        this.inResources = firstByte === OPEN_ARRAY;
      } else if (this.deploymentName === 'metadata') {
        this.keepFrom(start);
      }
    } else if (depth === 3 && this.inResources) {
      if (firstByte !== OPEN_OBJECT) this.deployment!.unsound = true;
      else if (!this.deployment!.unsound) this.keepFrom(start);
    }
  }

  valueEnd(end: number, depth: number): void {
    if (depth === 1) {
      if (this.topName === 'deployment') this.inDeployment = false;
      else if (this.topName === 'version') this.version = this.keptValue(end);
      else if (this.topName === 'features') this.features = { value: this.keptValue(end) };
    } else if (depth === 2 && this.inDeployment) {
      if (this.deploymentName === 'resources') this.inResources = false;
      else if (this.deploymentName === 'metadata') {
        this.deployment!.declared = declaresIntegrityError(this.keptValue(end) as { integrity_error?: unknown } | undefined);
      }
    } else if (depth === 3 && this.inResources) {
      const deployment = this.deployment!;
      deployment.count += 1;
      if (deployment.unsound) return;
      const bytes = this.scanner.bytes(this.keptStart, end);
      this.scanner.keep(undefined);
      if (deployment.walk!.add(checkedResource(bytes)) !== undefined) deployment.unsound = true;
    }
  }

  private keepFrom(start: number): void {
    this.keptStart = start;
    this.scanner.keep(start);
  }

  /** Parses the value kept since `keepFrom` and stops keeping it. */
  private keptValue(end: number): unknown {
    const value = parseRange(this.scanner.bytes(this.keptStart, end), 0, end - this.keptStart);
    this.scanner.keep(undefined);
    return value;
  }
}

/**
 * The number of resources of a sound deployment document given as bytes, or `undefined` when the bytes need the
 * full check (which then accepts or rejects them exactly as before).
 */
export function soundDeploymentResourceCount(bytes: Uint8Array): number | undefined {
  const scan = new DeploymentScan();
  scan.push(bytes);
  return scan.end();
}
