/**
 * Program archives as a run's source (`stackyard deployment run --source <dir>`; docs/deployments.md, "Program
 * archives"): the CLI declares an archive (size, SHA-256) and gets where to PUT it — straight to S3 with a presigned
 * PUT on AWS, through the API locally — then queues a run whose `sourceContext.archive` names it. The queue checks the
 * archive is there and is the one declared; the runner unpacks it instead of cloning.
 */
import { createHash, randomUUID } from 'node:crypto';
import { ConflictError, InvalidInputError, TooLargeError } from '../errors.js';
import type { StackRef } from '../names.js';
import type { StackRecord } from '../../ports/stack-store.js';
import { loadStack } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';

/**
 * The largest archive (gzip'd) a run may have as its source: under the 4.5 MB a Lambda request or response carries,
 * so the API can take it locally and hand it to a CodeBuild runner on AWS. A program without its dependencies
 * (`npm ci` installs them) is far smaller.
 */
export const MAX_SOURCE_ARCHIVE_BYTES = 4_000_000;

/** `sourceContext.archive` of a run: which uploaded archive, and its SHA-256 (hex) as the uploader declared it. */
export interface ArchiveSource {
  id: string;
  sha256: string;
}

/** Where to PUT a declared archive, and the headers the PUT must carry. */
export interface SourceUpload {
  id: string;
  uploadURI: string;
  requiredHeaders: Record<string, string>;
}

const ARCHIVE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SHA256 = /^[0-9a-f]{64}$/;
/** How long a presigned upload URI lives: the CLI uploads right after asking for it. */
const DIRECT_UPLOAD_SECONDS = 300;
const CONTENT_TYPE = 'application/gzip';

const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

function tooLarge(size: number): TooLargeError {
  return new TooLargeError(
    `The program archive is ${megabytes(size)}, over the ${megabytes(MAX_SOURCE_ARCHIVE_BYTES)} a run's source may be: ` +
      'leave dependencies and build outputs out of it (node_modules is never packed; list the rest in .gitignore).',
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `sourceContext.archive` of a settings document, checked; `undefined` when it names none. */
export function archiveSource(settings: Record<string, unknown>): ArchiveSource | undefined {
  const source = settings.sourceContext;
  if (!isObject(source) || source.archive === undefined) return undefined;
  const archive = source.archive;
  if (!isObject(archive) || typeof archive.id !== 'string' || !ARCHIVE_ID.test(archive.id) || typeof archive.sha256 !== 'string' || !SHA256.test(archive.sha256)) {
    throw new InvalidInputError('sourceContext.archive must be { "id": <the id POST …/deployments/sources returned>, "sha256": <its SHA-256, hex> }.');
  }
  if (source.git !== undefined) throw new InvalidInputError('sourceContext takes a git repository or an uploaded archive, not both.');
  return { id: archive.id, sha256: archive.sha256 };
}

/** Refuses an archive in a stack's own settings: an upload is one run's source. */
export function refuseArchiveInSettings(settings: Record<string, unknown>): void {
  if (isObject(settings.sourceContext) && settings.sourceContext.archive !== undefined) {
    throw new InvalidInputError("sourceContext.archive is one run's source, not a stack setting: pass it with the run (`stackyard deployment run <operation> --source <dir>`).");
  }
}

/** The archive a run is queued with must be uploaded, whole, and be the one its SHA-256 names. */
export async function requireUploadedArchive(deps: ServiceDeps, stack: StackRecord, source: ArchiveSource): Promise<void> {
  const archive = await deps.storage.sourceArchives.getArchive(stack.id, source.id);
  if (!archive) {
    throw new InvalidInputError(`Source archive '${source.id}' of this stack was not uploaded: PUT it to the uploadURI POST …/deployments/sources returned, then queue the run.`);
  }
  if (createHash('sha256').update(archive).digest('hex') !== source.sha256) {
    throw new InvalidInputError(`Source archive '${source.id}' is not the one declared: its SHA-256 differs from sourceContext.archive.sha256.`);
  }
}

/** The archive verbs of the DeploymentService: declare one (where to upload it), and the upload through the API. */
export function createSourceArchiveVerbs(deps: ServiceDeps) {
  const archives = () => deps.storage.sourceArchives;
  const base = () => deps.options.serviceUrl ?? '';
  return {
    async startUpload(principal: Principal, ref: StackRef, declared: { size: number; sha256: string }): Promise<SourceUpload> {
      const stack = await loadStack(deps, principal, ref, 'update');
      if (!Number.isSafeInteger(declared.size) || declared.size < 1) throw new InvalidInputError('size must be the archive\'s length in bytes.');
      if (!SHA256.test(declared.sha256)) throw new InvalidInputError('sha256 must be the archive\'s SHA-256, 64 lowercase hex digits.');
      if (declared.size > MAX_SOURCE_ARCHIVE_BYTES) throw tooLarge(declared.size);
      const id = randomUUID();
      // Straight to the bucket where the storage offers it (AWS), signed for exactly the declared bytes.
      const direct = await archives().uploadLocation(stack.id, id, declared, DIRECT_UPLOAD_SECONDS);
      if (direct) return { id, uploadURI: direct.url, requiredHeaders: direct.headers };
      const path = `/api/stacks/${stack.org}/${stack.project}/${stack.stack}/deployments/sources/${id}`;
      // A binary content type keeps API Gateway (and serve, which acts as it does) from reading the archive as text.
      return { id, uploadURI: `${base()}${path}`, requiredHeaders: { 'Content-Type': CONTENT_TYPE } };
    },

    /** The upload through the API (local storage): the caller's token, `update` on the stack; never replaces one. */
    async upload(principal: Principal, ref: StackRef, id: string, archive: Uint8Array): Promise<void> {
      const stack = await loadStack(deps, principal, ref, 'update');
      if (!ARCHIVE_ID.test(id)) throw new InvalidInputError(`'${id.slice(0, 40)}' is not a source archive id: upload to the uploadURI POST …/deployments/sources returned.`);
      if (archive.length > MAX_SOURCE_ARCHIVE_BYTES) throw tooLarge(archive.length);
      if (archive.length < 2 || archive[0] !== 0x1f || archive[1] !== 0x8b) throw new InvalidInputError('A source archive must be a gzip\'d tarball (.tgz).');
      try {
        await archives().putArchive(stack.id, id, archive);
      } catch (error) {
        if (error instanceof ConflictError) throw new ConflictError(`Source archive '${id}' is already uploaded: declare a new one to upload again.`);
        throw error;
      }
    },
  };
}
