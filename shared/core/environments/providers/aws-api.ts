/**
 * The three AWS calls the environment providers make, through the AWS SDK's own clients: STS
 * `AssumeRoleWithWebIdentity` (unsigned; the ID token is the credential), Secrets Manager `GetSecretValue` and SSM
 * `GetParameter` (signed with the credentials STS issued). Endpoints follow the SDK's own settings,
 * `AWS_ENDPOINT_URL_<SERVICE>` then `AWS_ENDPOINT_URL`, read from the `env` given (tests and `serve` pass their
 * own) and else the regional public endpoint. This file is the boundary: SDK errors become {@link AwsCallError}s
 * carrying AWS's code and message, never the request (which holds the token or the signature).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { AssumeRoleWithWebIdentityCommand, STSClient } from '@aws-sdk/client-sts';

/** Short-lived AWS credentials, as STS returns them. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** An AWS service refused or failed a call: AWS's error code and message, and the HTTP status. */
export class AwsCallError extends Error {
  constructor(
    readonly service: string,
    readonly code: string,
    readonly awsMessage: string,
    readonly status: number,
  ) {
    super(`${service}: ${code}: ${awsMessage}`);
  }
}

/** The services the providers call: the SDK's endpoint env-var suffix and the public host of each. */
export const AWS_SERVICES = {
  sts: { envSuffix: 'STS', name: 'sts', host: (region: string) => `sts.${region}.amazonaws.com` },
  secretsManager: { envSuffix: 'SECRETS_MANAGER', name: 'secretsmanager', host: (region: string) => `secretsmanager.${region}.amazonaws.com` },
  ssm: { envSuffix: 'SSM', name: 'ssm', host: (region: string) => `ssm.${region}.amazonaws.com` },
} as const;
export type AwsService = keyof typeof AWS_SERVICES;

const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const CALL_TIMEOUT_MS = 10_000;

/** Where a service is reached: the SDK's endpoint variables win; a region that is not one is refused (it names a host). */
export function awsEndpoint(service: AwsService, region: string, env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[`AWS_ENDPOINT_URL_${AWS_SERVICES[service].envSuffix}`]?.trim() || env.AWS_ENDPOINT_URL?.trim();
  if (configured) return configured.replace(/\/+$/, '');
  if (!REGION.test(region)) throw new AwsCallError(AWS_SERVICES[service].name, 'InvalidRegion', `'${region.slice(0, 40)}' is not an AWS region (e.g. us-east-1)`, 400);
  return `https://${AWS_SERVICES[service].host(region)}`;
}

/** The client settings every call shares: its endpoint, one retry, a bounded wait. */
function clientConfig(service: AwsService, region: string, env: NodeJS.ProcessEnv) {
  return {
    region,
    endpoint: awsEndpoint(service, region, env),
    maxAttempts: 2,
    requestHandler: { requestTimeout: CALL_TIMEOUT_MS, connectionTimeout: CALL_TIMEOUT_MS },
  };
}

/** An SDK failure as an {@link AwsCallError}: a service answer keeps AWS's code; a network failure says what was not reached. */
function callError(service: AwsService, endpoint: string, error: unknown): AwsCallError {
  // The query protocol (STS) keeps AWS's own code in `Code`; the SDK's class name adds `Exception` to it.
  const failure = error as { Code?: string; name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = failure.$metadata?.httpStatusCode;
  if (status === undefined) return new AwsCallError(AWS_SERVICES[service].name, 'Unreachable', `could not reach ${endpoint}: ${failure.message ?? String(error)}`, 503);
  const code = failure.Code ?? failure.name ?? `HTTP${status}`;
  return new AwsCallError(AWS_SERVICES[service].name, code, failure.message || 'no message', status);
}

async function call<T>(service: AwsService, region: string, env: NodeJS.ProcessEnv, send: (config: ReturnType<typeof clientConfig>) => Promise<T>): Promise<T> {
  const config = clientConfig(service, region, env);
  try {
    return await send(config);
  } catch (error) {
    throw callError(service, config.endpoint, error);
  }
}

/** STS `AssumeRoleWithWebIdentity`: the role's credentials for a web identity token, valid `durationSeconds`. */
export async function assumeRoleWithWebIdentity(
  request: { roleArn: string; sessionName: string; webIdentityToken: string; durationSeconds: number; policyArns?: readonly string[] },
  env: NodeJS.ProcessEnv = process.env,
): Promise<AwsCredentials & { expiration: string }> {
  const region = env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1';
  const answer = await call('sts', region, env, (config) =>
    // No credentials: the ID token is the credential, and the service's own must not be looked for or sent.
    new STSClient({ ...config, credentials: { accessKeyId: '', secretAccessKey: '' } }).send(
      new AssumeRoleWithWebIdentityCommand({
        RoleArn: request.roleArn,
        RoleSessionName: request.sessionName,
        WebIdentityToken: request.webIdentityToken,
        DurationSeconds: request.durationSeconds,
        ...(request.policyArns?.length ? { PolicyArns: request.policyArns.map((arn) => ({ arn })) } : {}),
      }),
    ),
  );
  const issued = answer.Credentials;
  if (!issued?.AccessKeyId || !issued.SecretAccessKey || !issued.SessionToken || !issued.Expiration) {
    throw new AwsCallError('sts', 'InvalidResponse', 'the answer carries no complete credentials', 200);
  }
  return { accessKeyId: issued.AccessKeyId, secretAccessKey: issued.SecretAccessKey, sessionToken: issued.SessionToken, expiration: issued.Expiration.toISOString() };
}

/** The three fields the SDK signs with (a caller's credentials may carry more, such as STS's expiration as text). */
function signingCredentials(credentials: AwsCredentials): AwsCredentials {
  return { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}) };
}

/** Secrets Manager `GetSecretValue` by name or ARN: the secret's string (`undefined` for a binary secret). */
export async function getSecretValue(
  request: { region: string; credentials: AwsCredentials; secretId: string; versionId?: string; versionStage?: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ secretString?: string }> {
  const answer = await call('secretsManager', request.region, env, (config) =>
    new SecretsManagerClient({ ...config, credentials: signingCredentials(request.credentials) }).send(
      new GetSecretValueCommand({
        SecretId: request.secretId,
        ...(request.versionId ? { VersionId: request.versionId } : {}),
        ...(request.versionStage ? { VersionStage: request.versionStage } : {}),
      }),
    ),
  );
  return { secretString: answer.SecretString };
}

/** SSM `GetParameter`: the parameter's value and type (`SecureString` values decrypted when asked). */
export async function getParameter(
  request: { region: string; credentials: AwsCredentials; name: string; decrypt: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ value?: string; type?: string }> {
  const answer = await call('ssm', request.region, env, (config) =>
    new SSMClient({ ...config, credentials: signingCredentials(request.credentials) }).send(new GetParameterCommand({ Name: request.name, WithDecryption: request.decrypt })),
  );
  return { value: answer.Parameter?.Value, type: answer.Parameter?.Type };
}
