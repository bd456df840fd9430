/**
 * Program archives a `deployment run --source <dir>` uploaded as its run's source (gzip'd tarballs: objects in the
 * state bucket in AWS, files in the data folder locally), kept per stack under an id the service chose.
 *
 * Guarantees:
 * - `putArchive` stores an archive whole or not at all and never replaces one: a second put of the same id is a
 *   `ConflictError` and leaves the first, so a queued run's source cannot change under it.
 * - `getArchive` of a missing one is `undefined`.
 * - `deleteStackArchives` removes every archive of the stack; nothing to remove is no error.
 * - `uploadLocation` is where a client may PUT the archive itself (a presigned S3 PUT in AWS, signed for exactly
 *   the declared size and SHA-256, and only where no archive of that id is), or `undefined` where uploads go through
 *   the API (local storage). An upload there is stored as `putArchive` stores it.
 */
export interface SourceArchiveStore {
  putArchive(stackId: string, archiveId: string, archive: Uint8Array): Promise<void>;
  getArchive(stackId: string, archiveId: string): Promise<Uint8Array | undefined>;
  deleteStackArchives(stackId: string): Promise<void>;
  uploadLocation(stackId: string, archiveId: string, declared: DeclaredArchive, expiresInSeconds: number): Promise<ArchiveUploadLocation | undefined>;
}

/** A direct upload target: the URL to PUT to and the headers the PUT must carry. */
export interface ArchiveUploadLocation {
  url: string;
  headers: Record<string, string>;
}

/** What the uploader declared before uploading: the archive's length in bytes and its SHA-256 (hex). */
export interface DeclaredArchive {
  size: number;
  sha256: string;
}
