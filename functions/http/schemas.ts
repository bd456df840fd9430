import * as z from 'zod/mini';

/**
 * Request bodies as the Pulumi CLI (and Stackyard's CLI) send them. Go serializes nil maps and slices as `null`, so
 * optional collections accept `null` too. Unknown keys are ignored, like Go's decoder does.
 *
 * This module holds what several route families share; each family's bodies are in schemas-<function>.ts, so a Lambda
 * function constructs only its own routes' schemas at cold start (the OpenAPI document, which describes them all,
 * loads the others when it is first asked for).
 */

/** A JSON object of strings (tags, environment variables). */
export const stringMapSchema = z.record(z.string(), z.string());

export const untypedDeploymentSchema = z.object({
  version: z
    .number()
    .check(
      z.int(),
      z.minimum(1, 'must be a deployment schema version (1 to 4)'),
      z.maximum(4, 'must be a deployment schema version (1 to 4)'),
    ),
  features: z.nullish(z.array(z.string())),
  deployment: z.record(z.string(), z.unknown(), 'must be a JSON object (the deployment)'),
});
