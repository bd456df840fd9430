/**
 * The `protect` resource option, as Pulumi's engine enforces it: a protected resource is never deleted by a plain
 * delete (`DeleteStep.Apply`) nor replaced (`generateStepsFromDiff`), and a delete-before-replace stops when a
 * dependent it would have to delete first is protected. Deletes made for a replacement are not checked again
 * here: the replacement was checked when it was decided, and removing `protect` in the same run allows it.
 */
import type { ResourceState } from '../state/deployment.js';

/** A delete refused because the resource is protected (no provider call was made). */
export class ProtectedDeleteError extends Error {
  override readonly name = 'ProtectedDeleteError';
  constructor(urn: string) {
    // Pulumi's own wording starts the message, so scripts matching `"<urn>" cannot be deleted` keep working
    super(
      `resource "${urn}" cannot be deleted because it is currently marked for protection; to unprotect it, remove the ` +
        `\`protect\` option and run \`stackyard up\`, or run \`stackyard state unprotect '${urn}'\``,
    );
  }
}

/** Whether a plain delete of `old` must be refused (a state already marked for deletion was replaced). */
export function deleteIsProtected(old: ResourceState): boolean {
  return old.protect === true && !old.delete;
}

/** The refusal of a replacement of `old`, unless the program removes `protect` in this run. */
export function replacementRefusal(urn: string, old: ResourceState, newProtect: boolean | undefined): string | undefined {
  if (!old.protect || !newProtect) return undefined;
  return `unable to replace resource "${urn}" as it is currently marked for protection; to unprotect it, remove the \`protect\` option and run \`stackyard up\``;
}

/**
 * The refusal of a delete-before-replace of `rootUrn` that would first delete a protected dependent it condemned
 * (`own`; one condemned by an earlier replacement was checked then).
 */
export function dependentReplacementRefusal(rootUrn: string, dependents: readonly { state: ResourceState; own: boolean }[]): string | undefined {
  const blocked = dependents.find((d) => d.own && deleteIsProtected(d.state))?.state.urn;
  if (!blocked) return undefined;
  return (
    `unable to replace resource "${blocked}" as part of replacing "${rootUrn}" as it is currently marked for ` +
    `protection; to unprotect it, remove the \`protect\` option and run \`stackyard up\`, or run ` +
    `\`stackyard state unprotect '${blocked}'\``
  );
}
