import * as z from 'zod/mini';

/** Request bodies of the policy routes (routes/policy-packs.ts, routes/policy-groups.ts): Pulumi's apitype shapes. */

const jsonObject = z.record(z.string(), z.unknown());

/** `POST /api/orgs/{org}/policypacks` (`CreatePolicyPackRequest`); the core checks names, versions and policies. */
export const createPolicyPackSchema = z.object({
  name: z.string('must be the pack name'),
  displayName: z.nullish(z.string()),
  versionTag: z.nullish(z.string()),
  policies: z.nullish(z.array(jsonObject)),
  description: z.nullish(z.string()),
  readme: z.nullish(z.string()),
  provider: z.nullish(z.string()),
  tags: z.nullish(z.array(z.string())),
  repository: z.nullish(z.string()),
  runtime: z.nullish(z.string()),
  metadata: z.nullish(z.record(z.string(), z.string())),
});

/** `POST /api/orgs/{org}/policygroups` (`CreatePolicyGroupRequest`). */
export const createPolicyGroupSchema = z.object({
  name: z.string('must be the group name'),
  entityType: z.nullish(z.string()),
  mode: z.nullish(z.string()),
  agentPoolId: z.nullish(z.string()),
});

const stackReference = z.object({ name: z.string('must be the stack name'), routingProject: z.nullish(z.string()) });
const packReference = z.object({
  name: z.string('must be the pack name'),
  displayName: z.nullish(z.string()),
  version: z.nullish(z.number().check(z.int())),
  versionTag: z.nullish(z.string()),
  config: z.nullish(jsonObject),
  environments: z.nullish(z.array(z.string())),
});

/** `PATCH /api/orgs/{org}/policygroups/{group}` (`UpdatePolicyGroupRequest`). */
export const updatePolicyGroupSchema = z.object({
  newName: z.nullish(z.string()),
  addStack: z.nullish(stackReference),
  removeStack: z.nullish(stackReference),
  addPolicyPack: z.nullish(packReference),
  removePolicyPack: z.nullish(packReference),
  addInsightsAccount: z.nullish(z.unknown()),
  removeInsightsAccount: z.nullish(z.unknown()),
  stacks: z.nullish(z.array(stackReference)),
  policyPacks: z.nullish(z.array(packReference)),
  insightsAccounts: z.nullish(z.unknown()),
});
