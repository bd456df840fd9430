import * as z from 'zod';
import { stringMapSchema } from './schemas.js';

/** Request bodies of the updates function's routes (updates.ts, hooks.ts); shared pieces are in schemas.ts. */

export const updateProgramSchema = z.object({
  name: z.string().nullish(),
  runtime: z.string().nullish(),
  main: z.string().nullish(),
  description: z.string().nullish(),
  options: z.object({ dryRun: z.boolean().nullish() }).nullish(),
  config: z.record(z.string(), z.unknown()).nullish(),
  metadata: z
    .object({
      message: z.string().nullish(),
      environment: stringMapSchema.nullish(),
    })
    .nullish(),
});

export const startUpdateSchema = z
  .object({
    tags: stringMapSchema.nullish(),
    journalVersion: z.number().int().nullish(),
    /** Stackyard extension: how long the lease lasts before renewal (clamped by the service). */
    leaseDurationSeconds: z.number().int().positive('must be a positive number of seconds').nullish(),
  })
  .optional();

export const renewLeaseSchema = z
  .object({
    token: z.string().nullish(),
    duration: z.number().int().nonnegative('must be a number of seconds').nullish(),
  })
  .optional();

export const engineEventsSchema = z.object({
  events: z.array(z.unknown(), 'must be an array of engine events').nullable(),
});

export const completeUpdateSchema = z.object({
  status: z.enum(['succeeded', 'failed', 'cancelled'], "must be 'succeeded', 'failed' or 'cancelled'"),
});

/** `POST …/hooks`: the service checks names, URLs, ARNs and events; here only the JSON types. */
export const addHookSchema = z.object({
  name: z.string('must be the hook name'),
  url: z.string('must be the https:// URL deliveries are posted to').optional(),
  secret: z.string('must be the signing secret (a string)').optional(),
  lambdaArn: z.string('must be the ARN of the Lambda function to invoke').optional(),
  events: z.array(z.string('must be an event name'), 'must be a list of event names').nullish(),
  active: z.boolean().optional(),
  gate: z.boolean().optional(),
  failOpen: z.boolean().optional(),
});
