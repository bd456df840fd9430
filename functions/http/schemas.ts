import * as z from 'zod';

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
  version: z.number().int().min(1, 'must be a deployment schema version (1 to 4)').max(4, 'must be a deployment schema version (1 to 4)'),
  features: z.array(z.string()).nullish(),
  deployment: z.record(z.string(), z.unknown(), 'must be a JSON object (the deployment)'),
});
