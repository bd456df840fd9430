import * as z from 'zod/mini';
import { stringMapSchema, untypedDeploymentSchema } from './schemas.js';

/** Request bodies of the stacks function's routes (stacks.ts, restore.ts); shared pieces are in schemas.ts. */

export const createStackSchema = z.object({
  stackName: z.string('must be the name of the new stack'),
  tags: z.nullish(stringMapSchema),
  teams: z.nullish(z.array(z.string())),
  state: z.nullish(untypedDeploymentSchema),
  config: z.optional(z.unknown()),
});

export const renameStackSchema = z.object({
  newName: z.string('must be the new stack name'),
  newProject: z.nullish(z.string()),
});

export const tagsSchema = stringMapSchema;

/** `POST …/rollback` (restore.ts). */
export const rollbackSchema = z.object({
  version: z.number('must be the version to restore').check(z.int(), z.minimum(1, 'must be 1 or more')),
});

/** One entry of another backend's history, in the shape of Pulumi's `UpdateInfo` (times in epoch seconds). */
export const historyEntrySchema = z.object({
  version: z.number().check(z.int(), z.minimum(1)),
  kind: z.string(),
  result: z.enum(['succeeded', 'failed']),
  startTime: z.number().check(z.int(), z.minimum(0)),
  endTime: z.number().check(z.int(), z.minimum(0)),
  message: z.nullish(z.string()),
  environment: z.nullish(z.record(z.string(), z.string())),
  config: z.nullish(z.record(z.string(), z.unknown())),
  resourceChanges: z.nullish(z.record(z.string(), z.number().check(z.int()))),
  deployment: z.nullish(untypedDeploymentSchema),
});
