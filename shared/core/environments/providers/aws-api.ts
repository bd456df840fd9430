/**
 * The three AWS calls the environment providers make, over HTTPS with Signature Version 4: STS
 * `AssumeRoleWithWebIdentity` (the query protocol; unsigned, the ID token is the credential), Secrets Manager
 * `GetSecretValue` and SSM `GetParameter` (the JSON 1.1 protocol, signed with the credentials STS issued).
 * Endpoints follow the AWS SDK's own settings: `AWS_ENDPOINT_URL_<SERVICE>`, then `AWS_ENDPOINT_URL`, then the
 * regional public endpoint. AWS errors become {@link AwsCallError}s carrying AWS's code and message, never the
 * request (which holds the token or the signature).
 */
import { createHash, createHmac } from 'node:crypto';

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

/** The services the providers call: the SDK's env-var suffix and the SigV4 signing name of each. */
export const AWS_SERVICES = {
  sts: { envSuffix: 'STS', signingName: 'sts', host: (region: string) => `sts.${region}.amazonaws.com` },
  secretsManager: { envSuffix: 'SECRETS_MANAGER', signingName: 'secretsmanager', host: (region: string) => `secretsmanager.${region}.amazonaws.com` },
  ssm: { envSuffix: 'SSM', signingName: 'ssm', host: (region: string) => `ssm.${region}.amazonaws.com` },
} as const;
export type AwsService = keyof typeof AWS_SERVICES;

const REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;
const CALL_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_CHARS = 1024 * 1024;

/** Where a service is reached: the SDK's endpoint variables win; a region that is not one is refused (it names a host). */
export function awsEndpoint(service: AwsService, region: string, env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[`AWS_ENDPOINT_URL_${AWS_SERVICES[service].envSuffix}`]?.trim() || env.AWS_ENDPOINT_URL?.trim();
  if (configured) return configured.replace(/\/+$/, '');
  if (!REGION.test(region)) throw new AwsCallError(AWS_SERVICES[service].signingName, 'InvalidRegion', `'${region.slice(0, 40)}' is not an AWS region (e.g. us-east-1)`, 400);
  return `https://${AWS_SERVICES[service].host(region)}`;
}

function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/**
 * The SigV4 `Authorization` header of a request (AWS General Reference, "Signature Version 4 signing process"):
 * canonical request → string to sign → HMAC chain of date, region and service. `headers` are lower-case and all
 * signed; the request has no query string.
 */
export function signV4(input: {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string;
  credentials: AwsCredentials;
  region: string;
  service: string;
  amzDate: string;
}): string {
  const names = Object.keys(input.headers).sort();
  const canonicalHeaders = names.map((name) => `${name}:${input.headers[name]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [input.method, input.url.pathname || '/', '', canonicalHeaders, signedHeaders, sha256Hex(input.body)].join('\n');
  const date = input.amzDate.slice(0, 8);
  const scope = `${date}/${input.region}/${input.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', input.amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${input.credentials.secretAccessKey}`, date), input.region), input.service), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${input.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

/** `20261128T061500Z`, the form SigV4 dates take. */
export function amzDate(at: number): string {
  return new Date(at).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

async function send(service: string, url: string, init: RequestInit): Promise<{ status: number; text: string }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  } catch (error) {
    throw new AwsCallError(service, 'Unreachable', `could not reach ${new URL(url).origin}: ${(error as Error).message}`, 503);
  }
  const text = (await response.text()).slice(0, MAX_RESPONSE_CHARS);
  return { status: response.status, text };
}

/** A signed JSON 1.1 call (`X-Amz-Target: <prefix>.<operation>`); AWS's `__type`/`message` become an {@link AwsCallError}. */
export async function callJson(
  service: 'secretsManager' | 'ssm',
  target: string,
  region: string,
  credentials: AwsCredentials,
  payload: object,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, unknown>> {
  const url = new URL(awsEndpoint(service, region, env));
  const body = JSON.stringify(payload);
  const when = amzDate(Date.now());
  const headers: Record<string, string> = {
    'content-type': 'application/x-amz-json-1.1',
    host: url.host,
    'x-amz-date': when,
    'x-amz-target': target,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  const signingName = AWS_SERVICES[service].signingName;
  const authorization = signV4({ method: 'POST', url, headers, body, credentials, region, service: signingName, amzDate: when });
  const { host: _host, ...sent } = headers;
  const { status, text } = await send(signingName, url.href, { method: 'POST', headers: { ...sent, authorization }, body });
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    throw new AwsCallError(signingName, 'InvalidResponse', `answered ${status} with a body that is not JSON`, status);
  }
  if (status >= 300) {
    const code = String(parsed.__type ?? parsed.code ?? `HTTP${status}`).split('#').pop()!;
    throw new AwsCallError(signingName, code, String(parsed.message ?? parsed.Message ?? 'no message'), status);
  }
  return parsed;
}

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The text of the first `<tag>` in an AWS query-protocol answer, entities decoded. */
export function xmlText(xml: string, tag: string): string | undefined {
  const match = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  return match?.[1]!.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => XML_ENTITIES[name]!);
}

/** STS `AssumeRoleWithWebIdentity`: the role's credentials for a web identity token, valid `durationSeconds`. */
export async function assumeRoleWithWebIdentity(
  request: { roleArn: string; sessionName: string; webIdentityToken: string; durationSeconds: number; policyArns?: readonly string[] },
  env: NodeJS.ProcessEnv = process.env,
): Promise<AwsCredentials & { expiration: string }> {
  const region = env.AWS_REGION?.trim() || env.AWS_DEFAULT_REGION?.trim() || 'us-east-1';
  const form = new URLSearchParams({
    Action: 'AssumeRoleWithWebIdentity',
    Version: '2011-06-15',
    RoleArn: request.roleArn,
    RoleSessionName: request.sessionName,
    WebIdentityToken: request.webIdentityToken,
    DurationSeconds: String(request.durationSeconds),
  });
  (request.policyArns ?? []).forEach((arn, index) => form.set(`PolicyArns.member.${index + 1}.arn`, arn));
  const { status, text } = await send('sts', `${awsEndpoint('sts', region, env)}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body: form.toString(),
  });
  if (status >= 300) {
    throw new AwsCallError('sts', xmlText(text, 'Code') ?? `HTTP${status}`, xmlText(text, 'Message') ?? 'no message', status);
  }
  const accessKeyId = xmlText(text, 'AccessKeyId');
  const secretAccessKey = xmlText(text, 'SecretAccessKey');
  const sessionToken = xmlText(text, 'SessionToken');
  const expiration = xmlText(text, 'Expiration');
  if (!accessKeyId || !secretAccessKey || !sessionToken || !expiration) {
    throw new AwsCallError('sts', 'InvalidResponse', 'the answer carries no complete credentials', status);
  }
  return { accessKeyId, secretAccessKey, sessionToken, expiration };
}
