import * as z from 'zod/mini';

/** Request bodies of the deployment routes (routes/deployments.ts): Pulumi's apitype shapes, checked further by the core. */

const jsonObject = z.record(z.string(), z.unknown());

/**
 * A settings `POST`: a merge patch of Pulumi's `DeploymentSettings`, each part an object (or null, which removes it).
 * Unknown top-level fields pass through so that the core refuses them by name rather than dropping them.
 */
export const deploymentSettingsPatchSchema = z.looseObject({
  tag: z.nullish(z.string()),
  agentPoolID: z.nullish(z.string()),
  executorContext: z.nullish(jsonObject),
  sourceContext: z.nullish(jsonObject),
  gitHub: z.nullish(jsonObject),
  operationContext: z.nullish(jsonObject),
  cacheOptions: z.nullish(jsonObject),
  pushWebhook: z.nullish(jsonObject),
});

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

/** `…/deployments/sources`: a program archive about to be uploaded, its length and SHA-256 (hex). */
export const createSourceUploadSchema = z.object({ size: z.number(), sha256: z.string() });

/** Pulumi's `CreateScheduledDeploymentRequest` (create and update of a raw schedule). */
export const scheduleSchema = z.object({
  scheduleCron: z.optional(z.string()),
  scheduleOnce: z.optional(z.string()),
  request: z.optional(createDeploymentSchema),
});

/** Pulumi's `CreateScheduledDriftDeploymentRequest`. */
export const driftScheduleSchema = z.object({
  scheduleCron: z.optional(z.string()),
  autoRemediate: z.optional(z.boolean()),
});

/** Pulumi's `CreateScheduledTTLDeploymentRequest`. */
export const ttlScheduleSchema = z.object({
  timestamp: z.optional(z.string()),
  deleteAfterDestroy: z.optional(z.boolean()),
});

/** A runner's log lines for its run (routes/deployment-runner.ts): at most 1000 per call. */
export const runnerLogSchema = z.object({ lines: z.array(z.string()).check(z.maxLength(1000)) });

/** The environments the run's stack imports, as its runner read them from `Pulumi.<stack>.yaml`. */
export const runnerEnvironmentsSchema = z.object({ environments: z.array(z.string().check(z.maxLength(300))).check(z.maxLength(50)) });

/** How the runner saw its run end. */
export const runnerFinishSchema = z.object({
  status: z.enum(['succeeded', 'failed']),
  failure: z.optional(z.string().check(z.maxLength(2000))),
});
