import * as z from 'zod';
import { stringMapSchema, untypedDeploymentSchema } from './schemas.js';

/** Request bodies of the stacks function's routes (stacks.ts); shared pieces are in schemas.ts. */

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
