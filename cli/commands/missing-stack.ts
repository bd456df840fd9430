/**
 * The error for a stack this folder's project does not have. After `stack rename` into another project, the stack
 * lives on under the new project name while `Pulumi.yaml` here still names the old one: say that, and how to follow
 * it, rather than only suggesting `stack init` (which would create an empty stack beside the renamed one).
 */
import type { StackRef } from '../../shared/core/names.js';
import type { Backend } from '../backend/backend.js';
import { UserError } from '../output/errors.js';

/** `no stack named '…' found`, naming the projects of the organization that have a stack of that name. */
export async function missingStackError(backend: Backend, ref: StackRef, shown: string, createHint: string): Promise<UserError> {
  const elsewhere = await backend
    .listStacks({ org: ref.org })
    .then((stacks) => stacks.filter((s) => s.ref.stack === ref.stack && s.ref.project !== ref.project).map((s) => s.ref.project))
    .catch(() => [] as string[]);
  if (elsewhere.length === 0) return new UserError(`no stack named '${shown}' found`, createHint);
  const projects = elsewhere.map((p) => `'${p}'`).join(', ');
  return new UserError(
    `no stack named '${shown}' found: Pulumi.yaml names project '${ref.project}', and stack '${ref.stack}' exists in ` +
      `project ${projects} (renamed there with \`stack rename\`?), so the project name in Pulumi.yaml no longer matches it`,
    `To follow the stack, set \`name: ${elsewhere[0]}\` in Pulumi.yaml (the stack keeps its config in Pulumi.${ref.stack}.yaml); ` +
      `to start a new stack in '${ref.project}' instead, run \`stackyard stack init ${ref.stack}\`.`,
  );
}
