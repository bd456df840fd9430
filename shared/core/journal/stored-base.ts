/**
 * Replaying a journal onto a stored base without rebuilding the base's resources.
 *
 * At `complete` most of the base usually survives unchanged (an update that changes 1 of 10,000 resources keeps
 * 9,999 of them as they were). Parsing each of them into objects only to write them out again with
 * `JSON.stringify` is most of what materialising costs. Here the base's bytes are walked once instead: a resource
 * whose stored text is exactly what `JSON.stringify` writes for it (no whitespace, no escape `JSON.stringify` would
 * not write, numbers in their shortest form, no repeated member name, no integer-like member name, whose order
 * `JSON.parse` would change) and that the replay only moves, never reads or copies, stays bytes; everything else is
 * parsed. The replayer runs as always over that list, and the result is written with those bytes spliced in where
 * `JSON.stringify` would have written the same bytes.
 *
 * It only ever answers with the bytes the plain path writes: anything it does not model (a journal that refreshes,
 * rebases or renames through aliases, a base that is not valid UTF-8 or JSON, a document of an unexpected shape)
 * answers `undefined`, and the caller parses the base and stringifies the replay as before, failing or succeeding
 * exactly as it always did.
 */
import { isUtf8 } from 'node:buffer';
import { replayJournal, type GenerateOptions } from './replayer.js';
import { JournalEntryKind } from './types.js';
import type { DeploymentV3, ResourceV3, VersionedDeployment } from '../checkpoints/index.js';
import type { JournalEntry } from './types.js';
import { CanonicalScanner } from './canonical-scanner.js';
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, CR, LF, OPEN_ARRAY, OPEN_OBJECT, QUOTE, SPACE, TAB } from '../checkpoints/json-bytes.js';

/** A base resource kept as its stored bytes. It has no members, so the replay reads nothing from it. */
class StoredResource {
  readonly #start: number;
  readonly #end: number;

  constructor(start: number, end: number) {
    this.#start = start;
    this.#end = end;
  }

  static start(resource: StoredResource): number {
    return resource.#start;
  }

  static end(resource: StoredResource): number {
    return resource.#end;
  }
}

/** Thrown inside the walk when the bytes are not what this path models; the caller takes the plain path. */
class NotModelled extends Error {}

function notModelled(): never {
  throw new NotModelled('not modelled');
}

/**
 * The journal replayed onto the stored base `bytes`, as the bytes `JSON.stringify` writes for it, or `undefined`
 * when this path does not model the journal or the base (the caller then parses the base and replays it).
 * `entries` are in `sequenceID` order, one per `sequenceID`.
 */
export function replayOntoStoredBase(
  bytes: Buffer,
  entries: readonly JournalEntry[],
  options: GenerateOptions,
): { text: Buffer; resourceCount: number } | undefined {
  if (!entries.every(splicable)) return undefined;
  try {
    const base = splitStoredBase(bytes);
    const resources = base.deployment.resources ?? [];
    // The replayer copies a base resource it marks deleted or pending replacement: those need their members.
    for (const entry of entries) {
      for (const index of [entry.deleteOld, entry.pendingReplacementOld]) {
        const resource = typeof index === 'number' ? resources[index] : undefined;
        if (resource instanceof StoredResource) resources[index!] = parseSpan(bytes, StoredResource.start(resource), StoredResource.end(resource)) as ResourceV3;
      }
    }
    // Aliases anywhere make the replay rewrite every resource's references.
    if (resources.some((r) => !(r instanceof StoredResource) && r.aliases !== undefined)) return undefined;
    const replayed = replayJournal(base, entries, options);
    return { text: serialize(replayed, bytes), resourceCount: replayed.deployment.resources?.length ?? 0 };
  } catch {
    // Whatever this path cannot take (including an error the replay raises), the plain path decides again.
    return undefined;
  }
}

/** Entries whose replay never reads, copies or rewrites a base resource it keeps (beyond the indices they name). */
function splicable(entry: JournalEntry): boolean {
  if (entry.kind === JournalEntryKind.Write || entry.kind === JournalEntryKind.RebuiltBaseState) return false;
  if (entry.kind === JournalEntryKind.RefreshSuccess || entry.isRefresh) return false;
  return entry.state?.aliases === undefined;
}

/** The stored base as the checkpoint loader reads it (`{version, features?, deployment}`), its resources split. */
function splitStoredBase(buf: Buffer): VersionedDeployment {
  if (!isUtf8(buf)) notModelled();
  let version: unknown;
  let features: unknown;
  let deployment: DeploymentV3 | undefined;
  const end = walkObject(buf, skipSpace(buf, 0), (name, start) => {
    if (name === 'deployment') {
      if (deployment !== undefined || buf[start] !== OPEN_OBJECT) notModelled();
      const split = splitDeployment(buf, start);
      deployment = split.deployment;
      return split.end;
    }
    const valueEnd = delimit(buf, start);
    const value = parseSpan(buf, start, valueEnd);
    if (name === 'version') version = value;
    if (name === 'features') features = value;
    return valueEnd;
  });
  if (skipSpace(buf, end) !== buf.length || deployment === undefined) notModelled();
  return Array.isArray(features) && features.length > 0
    ? { version: version as number, features: features as string[], deployment }
    : { version: version as number, deployment };
}

function splitDeployment(buf: Buffer, start: number): { deployment: DeploymentV3; end: number } {
  const deployment: Record<string, unknown> = {};
  const end = walkObject(buf, start, (name, valueStart) => {
    if (name === '__proto__' || Object.hasOwn(deployment, name)) notModelled();
    if (name === 'resources') {
      if (buf[valueStart] !== OPEN_ARRAY) notModelled();
      const split = splitResources(buf, valueStart);
      deployment.resources = split.resources;
      return split.end;
    }
    const valueEnd = delimit(buf, valueStart);
    deployment[name] = parseSpan(buf, valueStart, valueEnd);
    return valueEnd;
  });
  return { deployment: deployment as unknown as DeploymentV3, end };
}

function splitResources(buf: Buffer, start: number): { resources: ResourceV3[]; end: number } {
  const resources: (ResourceV3 | StoredResource)[] = [];
  const scanner = new CanonicalScanner(buf);
  let i = skipSpace(buf, start + 1);
  if (buf[i] === CLOSE_ARRAY) return { resources: [], end: i + 1 };
  for (;;) {
    if (buf[i] !== OPEN_OBJECT) notModelled();
    const canonicalEnd = scanner.resourceEnd(i);
    if (canonicalEnd >= 0 && !scanner.readMember) {
      resources.push(new StoredResource(i, canonicalEnd));
      i = canonicalEnd;
    } else {
      const valueEnd = canonicalEnd >= 0 ? canonicalEnd : delimit(buf, i);
      resources.push(parseSpan(buf, i, valueEnd) as ResourceV3);
      i = valueEnd;
    }
    i = skipSpace(buf, i);
    if (buf[i] === CLOSE_ARRAY) return { resources: resources as ResourceV3[], end: i + 1 };
    if (buf[i] !== COMMA) notModelled();
    i = skipSpace(buf, i + 1);
  }
}

/**
 * Walks the object at `start` (whitespace allowed, as `JSON.parse` allows it), handing each member's name and the
 * start of its value to `member`, which answers where the value ends. Returns the index just past the object.
 */
function walkObject(buf: Buffer, start: number, member: (name: string, valueStart: number) => number): number {
  if (buf[start] !== OPEN_OBJECT) notModelled();
  let i = skipSpace(buf, start + 1);
  if (buf[i] === CLOSE_OBJECT) return i + 1;
  for (;;) {
    if (buf[i] !== QUOTE) notModelled();
    const nameEnd = delimit(buf, i);
    const name = parseSpan(buf, i, nameEnd) as string;
    i = skipSpace(buf, nameEnd);
    if (buf[i] !== COLON) notModelled();
    i = skipSpace(buf, member(name, skipSpace(buf, i + 1)));
    if (buf[i] === CLOSE_OBJECT) return i + 1;
    if (buf[i] !== COMMA) notModelled();
    i = skipSpace(buf, i + 1);
  }
}

function skipSpace(buf: Buffer, i: number): number {
  let byte = buf[i];
  while (byte === SPACE || byte === LF || byte === CR || byte === TAB) byte = buf[++i];
  return i;
}

/**
 * The end of the value starting at `i`, found by matching brackets outside strings. It does not validate: the span
 * is then parsed with `JSON.parse`, which throws for anything that is not one JSON value.
 */
function delimit(buf: Buffer, i: number): number {
  let depth = 0;
  for (;;) {
    const byte = buf[i];
    if (byte === undefined) notModelled();
    if (byte === QUOTE) {
      i += 1;
      for (;;) {
        const inner = buf[i];
        if (inner === undefined) notModelled();
        if (inner === QUOTE) break;
        i += inner === BACKSLASH ? 2 : 1;
      }
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      depth += 1;
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth -= 1;
      if (depth < 0) return i;
    } else if (depth === 0 && (byte === COMMA || byte === SPACE || byte === LF || byte === CR || byte === TAB)) {
      return i;
    }
    i += 1;
    if (depth === 0 && (byte === QUOTE || byte === CLOSE_OBJECT || byte === CLOSE_ARRAY)) return i;
  }
}

function parseSpan(buf: Buffer, start: number, end: number): unknown {
  return JSON.parse(buf.toString('utf8', start, end));
}

/**
 * `JSON.stringify(replayed)` as bytes, with each stored resource's bytes where `JSON.stringify` would write the same
 * text for its parsed form. The two objects around the resources are written member by member as `JSON.stringify`
 * writes them (a member whose value it skips is skipped).
 */
function serialize(replayed: VersionedDeployment, buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let text = '';
  const object = (value: object, special: string, writeSpecial: (value: unknown) => void): void => {
    text += '{';
    let first = true;
    for (const [name, member] of Object.entries(value)) {
      const json = name === special ? '' : JSON.stringify(member);
      if (json === undefined) continue;
      text += `${first ? '' : ','}${JSON.stringify(name)}:`;
      first = false;
      if (name === special) writeSpecial(member);
      else text += json;
    }
    text += '}';
  };
  let runStart = -1;
  let runEnd = -1;
  const endRun = (): void => {
    if (runStart < 0) return;
    parts.push(Buffer.from(text), buf.subarray(runStart, runEnd));
    text = '';
    runStart = -1;
  };
  const resources = (list: readonly (ResourceV3 | StoredResource)[]): void => {
    text += '[';
    list.forEach((resource, index) => {
      if (!(resource instanceof StoredResource)) {
        endRun();
        text += `${index > 0 ? ',' : ''}${JSON.stringify(resource)}`;
        return;
      }
      const start = StoredResource.start(resource);
      // Neighbours in the base separated by a bare comma are written as one run of its bytes.
      if (runStart >= 0 && start === runEnd + 1 && buf[runEnd] === COMMA) {
        runEnd = StoredResource.end(resource);
        return;
      }
      endRun();
      if (index > 0) text += ',';
      runStart = start;
      runEnd = StoredResource.end(resource);
    });
    endRun();
    text += ']';
  };
  object(replayed, 'deployment', (deployment) =>
    object(deployment as object, 'resources', (list) => resources(list as (ResourceV3 | StoredResource)[])),
  );
  parts.push(Buffer.from(text));
  return Buffer.concat(parts);
}
