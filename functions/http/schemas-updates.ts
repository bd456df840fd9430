import * as z from 'zod/mini';
import { stringMapSchema } from './schemas.js';

/** Request bodies of the updates function's routes (updates.ts, hooks.ts); shared pieces are in schemas.ts. */

export const updateProgramSchema = z.object({
  name: z.nullish(z.string()),
  runtime: z.nullish(z.string()),
  main: z.nullish(z.string()),
  description: z.nullish(z.string()),
  options: z.nullish(z.object({ dryRun: z.nullish(z.boolean()) })),
  config: z.nullish(z.record(z.string(), z.unknown())),
  metadata: z.nullish(
    z.object({
      message: z.nullish(z.string()),
      environment: z.nullish(stringMapSchema),
    }),
  ),
});

export const startUpdateSchema = z.optional(
  z.object({
    tags: z.nullish(stringMapSchema),
    journalVersion: z.nullish(z.number().check(z.int())),
    /** Stackyard extension: how long the lease lasts before renewal (clamped by the service). */
    leaseDurationSeconds: z.nullish(z.number().check(z.int(), z.positive('must be a positive number of seconds'))),
    /** Stackyard extension: the approved plan this update applies (docs/plans.md, "Approvals on the service"). */
    stackyardPlan: z.nullish(z.object({ id: z.string(), programDigest: z.string() })),
  }),
);

export const renewLeaseSchema = z.optional(
  z.object({
    token: z.nullish(z.string()),
    duration: z.nullish(z.number().check(z.int(), z.nonnegative('must be a number of seconds'))),
  }),
);

export const engineEventsSchema = z.object({
  events: z.nullable(z.array(z.unknown(), 'must be an array of engine events')),
});

export const completeUpdateSchema = z.object({
  status: z.enum(['succeeded', 'failed', 'cancelled'], "must be 'succeeded', 'failed' or 'cancelled'"),
});

/** `POST …/hooks`: the service checks names, URLs, ARNs and events; here only the JSON types. */
export const addHookSchema = z.object({
  name: z.string('must be the hook name'),
  url: z.optional(z.string('must be the https:// URL deliveries are posted to')),
  secret: z.optional(z.string('must be the signing secret (a string)')),
  lambdaArn: z.optional(z.string('must be the ARN of the Lambda function to invoke')),
  events: z.nullish(z.array(z.string('must be an event name'), 'must be a list of event names')),
  active: z.optional(z.boolean()),
  gate: z.optional(z.boolean()),
  failOpen: z.optional(z.boolean()),
  format: z.optional(z.string('must be raw, slack or ms_teams')),
});
