import type { UpdatePolicyGroupRequest } from '../../../shared/core/policy/index.js';
import { validateBody } from '../decode.js';
import { jsonResponse, noContentResponse, okResponse } from '../respond.js';
import type { Route } from '../router.js';
import { createPolicyGroupSchema, updatePolicyGroupSchema } from '../schemas-policy.js';
import { withoutNulls } from './policy-wire.js';

/**
 * Policy groups as the `pulumi` CLI's client calls them (ListPolicyGroups, CreatePolicyGroup, GetPolicyGroup,
 * UpdatePolicyGroup — which `policy enable` and `policy disable` use — and DeletePolicyGroup).
 */
const GROUPS = '/api/orgs/{orgName}/policygroups';
const GROUP = `${GROUPS}/{policyGroup}`;

/** Each nested reference of a PATCH with its own `null`s dropped too (Go writes nil fields of them as `null`). */
function patchOf(body: Record<string, unknown>): UpdatePolicyGroupRequest {
  const clean = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(clean) : value && typeof value === 'object' ? withoutNulls(value as object) : value;
  return Object.fromEntries(Object.entries(withoutNulls(body)).map(([key, value]) => [key, clean(value)])) as UpdatePolicyGroupRequest;
}

export const policyGroupRoutes: Route[] = [
  {
    method: 'GET',
    path: GROUPS,
    group: 'stacks',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.policies.listGroups(await ctx.principal(), ctx.params.orgName!));
    },
  },
  {
    method: 'POST',
    path: GROUPS,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = withoutNulls(validateBody(createPolicyGroupSchema, await ctx.jsonBody(), 'create policy group request'));
      await ctx.services.policies.createGroup(principal, ctx.params.orgName!, body);
      return noContentResponse(204);
    },
  },
  {
    method: 'GET',
    path: GROUP,
    group: 'stacks',
    async handle(ctx) {
      return jsonResponse(200, await ctx.services.policies.getGroup(await ctx.principal(), ctx.params.orgName!, ctx.params.policyGroup!));
    },
  },
  {
    method: 'PATCH',
    path: GROUP,
    group: 'stacks',
    async handle(ctx) {
      const principal = await ctx.principal();
      const body = validateBody(updatePolicyGroupSchema, await ctx.jsonBody(), 'update policy group request');
      await ctx.services.policies.updateGroup(principal, ctx.params.orgName!, ctx.params.policyGroup!, patchOf(body));
      return okResponse();
    },
  },
  {
    method: 'DELETE',
    path: GROUP,
    group: 'stacks',
    async handle(ctx) {
      await ctx.services.policies.deleteGroup(await ctx.principal(), ctx.params.orgName!, ctx.params.policyGroup!);
      return noContentResponse(204);
    },
  },
];
