import { InvalidInputError } from '../../../shared/core/errors.js';
import { jsonResponse } from '../respond.js';
import type { Route } from '../router.js';

const STACK = '/api/stacks/{orgName}/{projectName}/{stackName}';

function versionParameter(text: string | null, name: string): number | undefined {
  if (text === null || text === '') return undefined;
  if (!/^[0-9]{1,9}$/.test(text)) {
    throw new InvalidInputError(`${name} must be a version number (0 or more), got '${text.slice(0, 20)}'; list the versions with 'stackyard stack history'.`);
  }
  return Number(text);
}

function booleanParameter(text: string | null, name: string): boolean {
  if (text === null || text === '' || text === 'false') return false;
  if (text === 'true') return true;
  throw new InvalidInputError(`${name} must be true or false, got '${text.slice(0, 20)}'.`);
}

/** Stackyard's own route (not part of the Pulumi API): what changed between two versions of a stack (`stack diff`). */
export const stateDiffRoutes: Route[] = [
  {
    method: 'GET',
    path: `${STACK}/diff`,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const ref = ctx.stackRef();
      const q = ctx.request.query;
      const versions = { from: versionParameter(q.get('from'), 'from'), to: versionParameter(q.get('to'), 'to') };
      const showSecrets = booleanParameter(q.get('showSecrets'), 'showSecrets');
      return jsonResponse(200, await ctx.services.stateDiff.diffVersions(principal, ref, versions, { showSecrets }));
    },
  },
];
