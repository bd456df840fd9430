import * as z from 'zod';
import { stringMapSchema, untypedDeploymentSchema } from './schemas.js';

/** Request bodies of the stacks function's routes (stacks.ts, restore.ts); shared pieces are in schemas.ts. */

export const createStackSchema = z.object({
  stackName: z.string('must be the name of the new stack'),
  tags: stringMapSchema.nullish(),
  teams: z.array(z.string()).nullish(),
  state: untypedDeploymentSchema.nullish(),
  config: z.unknown().optional(),
});

export const renameStackSchema = z.object({
  newName: z.string('must be the new stack name'),
  newProject: z.string().nullish(),
});

export const tagsSchema = stringMapSchema;

/** `POST …/rollback` (restore.ts). */
export const rollbackSchema = z.object({ version: z.number('must be the version to restore').int().min(1, 'must be 1 or more') });

/** One entry of another backend's history, in the shape of Pulumi's `UpdateInfo` (times in epoch seconds). */
export const historyEntrySchema = z.object({
  version: z.number().int().min(1),
  kind: z.string(),
  result: z.enum(['succeeded', 'failed']),
  startTime: z.number().int().min(0),
  endTime: z.number().int().min(0),
  message: z.string().nullish(),
  environment: z.record(z.string(), z.string()).nullish(),
  config: z.record(z.string(), z.unknown()).nullish(),
  resourceChanges: z.record(z.string(), z.number().int()).nullish(),
  deployment: untypedDeploymentSchema.nullish(),
});
