import * as z from 'zod/mini';

/** Request bodies of the deployment routes (routes/deployments.ts): Pulumi's apitype shapes, checked further by the core. */

const jsonObject = z.record(z.string(), z.unknown());

/** A settings `POST`: a merge patch of Pulumi's `DeploymentSettings` (the core refuses unknown top-level fields). */
export const deploymentSettingsPatchSchema = jsonObject;

/** `…/deployments/settings/encrypt`: one value to seal, in Pulumi's secret wire form. */
export const encryptDeploymentSecretSchema = z.object({ secret: z.string() });

/** Pulumi's `CreateDeploymentRequest`. */
export const createDeploymentSchema = z.object({
  operation: z.string(),
  inheritSettings: z.optional(z.boolean()),
  executorContext: z.optional(jsonObject),
  sourceContext: z.optional(jsonObject),
  operationContext: z.optional(jsonObject),
  agentPoolID: z.nullish(z.string()),
});
