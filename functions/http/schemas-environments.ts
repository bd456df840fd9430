import * as z from 'zod/mini';

/** Request bodies of the environment routes (routes/environments.ts, routes/environment-versions.ts): ESC's API types. */

/** `POST /api/esc/environments/{org}` (`CreateEnvironment`). */
export const createEnvironmentSchema = z.object({
  project: z.string('must be the project name'),
  name: z.string('must be the environment name'),
});

/** `POST …/clone` (`CloneEnvironmentRequest`); Go's `omitempty` leaves out zero values. */
export const cloneEnvironmentSchema = z.object({
  project: z.optional(z.string()),
  name: z.string('must be the new environment name'),
  version: z.optional(z.number().check(z.int())),
  preserveHistory: z.optional(z.boolean()),
  preserveAccess: z.optional(z.boolean()),
  preserveEnvironmentTags: z.optional(z.boolean()),
  preserveRevisionTags: z.optional(z.boolean()),
});

/** `POST …/versions/tags` (`CreateEnvironmentRevisionTagRequest`): no revision means the latest. */
export const createRevisionTagSchema = z.object({
  name: z.string('must be the tag name'),
  revision: z.nullish(z.number().check(z.int())),
});

/** `PATCH …/versions/tags/{tag}` (`UpdateEnvironmentRevisionTagRequest`). */
export const updateRevisionTagSchema = z.object({ revision: z.nullish(z.number().check(z.int())) });

/** `PATCH …/permissions` (Stackyard's own, as for stacks): one user or team, a permission or null to remove. */
export const environmentGrantSchema = z.object({
  user: z.optional(z.string()),
  team: z.optional(z.string()),
  permission: z.nullable(z.enum(['read', 'open', 'write', 'admin'], "must be 'read', 'open', 'write', 'admin' or null")),
});
