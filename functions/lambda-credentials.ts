import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles (an esbuild alias, `LAMBDA_ALIASES` in
 * infra/lib/constructs/api-functions.ts). Lambda hands every function its execution role's credentials in
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, the first link of the SDK's default chain and the
 * only one that can answer there; the other links (SSO, profiles, processes, web identity, container and instance
 * metadata) and the STS/SSO clients they carry would be about 90 KB of every bundle that no invocation runs.
 * `stackyard serve` and the CLI keep the whole chain.
 */
export const defaultProvider: typeof fromEnv = (init) => fromEnv(init);
