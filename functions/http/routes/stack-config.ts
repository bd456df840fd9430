/**
 * Remote stack configuration (`pulumi stack init --remote-config`): the stack's configuration lives in an ESC
 * environment, `<project>/<stack>` by default, linked from the stack record and answered as `config.environment` on
 * `GET` of the stack (apitype.StackConfig), which is how the CLI knows to read it from there and not from
 * `Pulumi.<stack>.yaml`.
 */
import * as z from 'zod/mini';
import { ConflictError, InvalidInputError } from '../../../shared/core/errors.js';
import { parseConfigEnvironment, type StackRef } from '../../../shared/core/names.js';
import type { Principal } from '../../../shared/core/kernel/principal.js';
import type { StackRecord } from '../../../shared/ports/stack-store.js';
import type { Services } from '../../../shared/core/compose/types.js';
import { validateBody } from '../decode.js';
import { okResponse } from '../respond.js';
import type { Route } from '../router.js';

/** `apitype.StackConfig`, as the CLI sends it on create (`config`) and on `PUT …/config`. */
export const stackConfigSchema = z.object({
  environment: z.string('must name the ESC environment (`<project>/<env>`) that holds the configuration'),
  secretsProvider: z.nullish(z.string()),
  encryptedKey: z.nullish(z.string()),
  encryptionSalt: z.nullish(z.string()),
});

/** A checked `apitype.StackConfig`: only the environment; the secrets stay under the stack's service key. */
export function checkStackConfig(org: string, value: unknown): string {
  const config = validateBody(stackConfigSchema, value, 'stack config');
  const provider = config.secretsProvider ?? '';
  if ((provider !== '' && provider !== 'service') || config.encryptedKey || config.encryptionSalt) {
    throw new InvalidInputError(
      'A remote-config stack keeps its secrets under its own Stackyard key: send its config without secretsProvider, ' +
        'encryptedKey or encryptionSalt (or secretsProvider "service").',
    );
  }
  const ref = parseConfigEnvironment(org, config.environment);
  return `${ref.project}/${ref.name}`;
}

/**
 * Creates the stack linked to `environment`, then the environment unless it exists (an existing one is linked as it
 * is). When the environment cannot be created (the caller may not create environments, say) the new stack is removed
 * again, so a refused request leaves nothing behind.
 */
export async function createStackWithConfig(
  services: Services,
  principal: Principal,
  ref: StackRef,
  environment: string,
  create: (configEnvironment: string) => Promise<StackRecord>,
): Promise<StackRecord> {
  const stack = await create(environment);
  const [project, name] = environment.split('/') as [string, string];
  try {
    await services.environments.create(principal, { org: ref.org, project, name });
  } catch (error) {
    if (error instanceof ConflictError) return stack;
    await services.stacks.remove(principal, ref, true).catch(() => undefined);
    throw error;
  }
  return stack;
}

/** `PUT /api/stacks/{o}/{p}/{s}/config` (the CLI's `UpdateStackConfig`): links another environment. */
export const stackConfigRoutes: Route[] = [
  {
    method: 'PUT',
    path: '/api/stacks/{orgName}/{projectName}/{stackName}/config',
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const environment = checkStackConfig(ref.org, await ctx.jsonBody());
      await ctx.services.stacks.setConfigEnvironment(principal, ref, environment);
      return okResponse();
    },
  },
];
