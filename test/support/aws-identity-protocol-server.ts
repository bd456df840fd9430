/**
 * A stand-in for AWS STS, Secrets Manager and SSM Parameter Store, in one process (run it as its own process, see
 * aws-identity-server.ts; it prints `READY <port>` once listening). What it checks, as AWS does:
 * - STS `AssumeRoleWithWebIdentity` (query protocol, unsigned): the web identity token's signature against its
 *   issuer's JWKS, fetched over HTTP from `<iss>/.well-known/openid-configuration` (only for an issuer a role trusts,
 *   as AWS needs an IAM OIDC provider for it), its expiry, then the role's trust policy (`aud` and `sub`, `sub` may
 *   end in `*`) and the role's maximum session duration. It issues fresh credentials, remembered until they expire.
 * - Secrets Manager `GetSecretValue` and SSM `GetParameter` (JSON 1.1): a SigV4 signature by credentials STS issued
 *   (the session token must match), recomputed with the AWS SDK's own signer (@smithy/signature-v4) and the
 *   secret key STS issued, and a date within 5 minutes.
 * Configured from STACKYARD_AWS_STAND_IN (JSON: {roles, secrets, parameters}) and `PUT /__stand-in/config`; node:http,
 * jose and the SDK's signer.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { pathToFileURL } from 'node:url';
import { Hash } from '@smithy/core/serde';
import { SignatureV4 } from '@smithy/signature-v4';
import { createLocalJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JSONWebKeySet } from 'jose';

/** A role and its trust policy: who may assume it with a web identity. */
export interface StandInRole {
  roleArn: string;
  /** The OIDC provider the trust policy names (`Federated: arn:aws:iam::…:oidc-provider/<host/path>`), as an issuer URL. */
  issuer: string;
  /** `<host>:aud` StringEquals. */
  audience: string;
  /** `<host>:sub` StringLike; a trailing `*` matches any rest. */
  subject: string;
  /** The role's MaxSessionDuration (default 3600). */
  maxSessionSeconds?: number;
}

export interface AwsIdentityStandInConfig {
  roles: StandInRole[];
  /** Secrets Manager: secret name (or ARN) → string value. */
  secrets: Record<string, string>;
  /** SSM: parameter name → type and value. */
  parameters: Record<string, { type: 'String' | 'StringList' | 'SecureString'; value: string }>;
}

interface IssuedCredentials {
  secretAccessKey: string;
  sessionToken: string;
  expiresAt: number;
  roleArn: string;
}

class Fault extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const ACCOUNT = '000000000000';
/** Where tests replace the configuration of a running stand-in (roles need the issuer URL of a server started after it). */
export const CONFIG_PATH = '/__stand-in/config';
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function fetchJson(url: string): Promise<unknown> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Fault('InvalidIdentityToken', `Couldn't retrieve verification key from your identity provider (${url} answered ${response.status})`);
  return response.json();
}

function subjectMatches(pattern: string, subject: string): boolean {
  return pattern.endsWith('*') ? subject.startsWith(pattern.slice(0, -1)) : subject === pattern;
}

/** Builds the stand-in (not yet listening). */
export function createAwsIdentityServer(initial: AwsIdentityStandInConfig): Server {
  let config = initial;
  const issued = new Map<string, IssuedCredentials>();

  async function assumeRole(form: URLSearchParams): Promise<string> {
    const roleArn = form.get('RoleArn') ?? '';
    const token = form.get('WebIdentityToken') ?? '';
    const sessionName = form.get('RoleSessionName') ?? '';
    const duration = Number(form.get('DurationSeconds') ?? '3600');
    if (!/^[\w+=,.@-]{2,64}$/.test(sessionName)) throw new Fault('ValidationError', `1 validation error detected: Value '${sessionName}' at 'roleSessionName' failed to satisfy constraint`);
    const role = config.roles.find((r) => r.roleArn === roleArn);
    if (!role) throw new Fault('AccessDenied', 'Not authorized to perform sts:AssumeRoleWithWebIdentity', 403);
    let claims: ReturnType<typeof decodeJwt>;
    try {
      claims = decodeJwt(token);
    } catch {
      throw new Fault('InvalidIdentityToken', 'The web identity token that was passed could not be validated by AWS. Get a new identity token from the identity provider and then retry the request.');
    }
    if (claims.iss !== role.issuer) throw new Fault('InvalidIdentityToken', `No OpenIDConnect provider found in your account for ${String(claims.iss)}`);
    const discovery = (await fetchJson(`${role.issuer}/.well-known/openid-configuration`)) as { issuer?: string; jwks_uri?: string };
    if (discovery.issuer !== role.issuer || typeof discovery.jwks_uri !== 'string') throw new Fault('InvalidIdentityToken', 'The issuer of the discovery document does not match');
    const keys = createLocalJWKSet((await fetchJson(discovery.jwks_uri)) as JSONWebKeySet);
    try {
      await jwtVerify(token, keys, { issuer: role.issuer, algorithms: ['RS256', 'ES256'] });
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new Fault('ExpiredTokenException', 'Token expired: current date/time must be before the expiration date/time');
      throw new Fault('InvalidIdentityToken', `The web identity token could not be validated: ${(error as Error).message}`);
    }
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(role.audience) || typeof claims.sub !== 'string' || !subjectMatches(role.subject, claims.sub)) {
      throw new Fault('AccessDenied', 'Not authorized to perform sts:AssumeRoleWithWebIdentity', 403);
    }
    if (!Number.isInteger(duration) || duration < 900 || duration > (role.maxSessionSeconds ?? 3600)) {
      throw new Fault('ValidationError', `The requested DurationSeconds exceeds the MaxSessionDuration set for this role.`);
    }
    const accessKeyId = `ASIA${randomBytes(8).toString('hex').toUpperCase()}`;
    const credentials: IssuedCredentials = {
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(48).toString('base64'),
      expiresAt: Date.now() + duration * 1000,
      roleArn,
    };
    issued.set(accessKeyId, credentials);
    return [
      '<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult>',
      `<SubjectFromWebIdentityToken>${claims.sub}</SubjectFromWebIdentityToken><Audience>${role.audience}</Audience>`,
      `<AssumedRoleUser><Arn>${roleArn.replace(':role/', ':assumed-role/')}/${sessionName}</Arn><AssumedRoleId>AROA:${sessionName}</AssumedRoleId></AssumedRoleUser>`,
      `<Credentials><AccessKeyId>${accessKeyId}</AccessKeyId><SecretAccessKey>${credentials.secretAccessKey}</SecretAccessKey>`,
      `<SessionToken>${credentials.sessionToken}</SessionToken><Expiration>${new Date(credentials.expiresAt).toISOString()}</Expiration></Credentials>`,
      `<Provider>${role.issuer}</Provider></AssumeRoleWithWebIdentityResult><ResponseMetadata><RequestId>${randomBytes(8).toString('hex')}</RequestId></ResponseMetadata></AssumeRoleWithWebIdentityResponse>`,
    ].join('');
  }

  /** Checks the SigV4 signature of a JSON 1.1 request; returns the credentials' role. */
  async function verifySignature(req: IncomingMessage, body: string, service: string): Promise<string> {
    const authorization = String(req.headers.authorization ?? '');
    const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(authorization);
    if (!match) throw new Fault('MissingAuthenticationTokenException', 'Request is missing Authentication Token', 403);
    const [, accessKeyId, , region, signedService, signedHeaders, signature] = match as unknown as string[];
    const credentials = issued.get(accessKeyId!);
    if (!credentials) throw new Fault('UnrecognizedClientException', 'The security token included in the request is invalid.', 400);
    if (credentials.expiresAt <= Date.now()) throw new Fault('ExpiredTokenException', 'The security token included in the request is expired', 400);
    if (req.headers['x-amz-security-token'] !== credentials.sessionToken) throw new Fault('UnrecognizedClientException', 'The security token included in the request is invalid.', 400);
    if (signedService !== service) throw new Fault('InvalidSignatureException', `Credential should be scoped to correct service: '${service}'.`, 400);
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    const signingDate = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
    if (Number.isNaN(signingDate.getTime()) || Math.abs(signingDate.getTime() - Date.now()) > MAX_CLOCK_SKEW_MS) {
      throw new Fault('InvalidSignatureException', 'Signature expired or not yet valid: the x-amz-date is more than 5 minutes away.', 400);
    }
    const names = signedHeaders!.split(';');
    for (const required of ['host', 'x-amz-date']) if (!names.includes(required)) throw new Fault('InvalidSignatureException', `'${required}' must be a signed header.`, 400);
    const headers = Object.fromEntries(names.map((name) => [name, String(req.headers[name] ?? '')]));
    const signer = new SignatureV4({
      service,
      region: region!,
      credentials: { accessKeyId: accessKeyId!, secretAccessKey: credentials.secretAccessKey, sessionToken: credentials.sessionToken },
      sha256: Hash.bind(null, 'sha256'),
      applyChecksum: false,
    });
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const expected = await signer.sign(
      { method: req.method ?? 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port) || undefined, path: url.pathname, headers, body, query: {} },
      { signingDate },
    );
    const expectedSignature = /Signature=([0-9a-f]{64})/.exec(String(expected.headers.authorization))?.[1] ?? '';
    if (!timingSafeEqual(Buffer.from(expectedSignature), Buffer.from(signature!))) {
      throw new Fault('InvalidSignatureException', 'The request signature we calculated does not match the signature you provided.', 403);
    }
    return credentials.roleArn;
  }

  function getSecretValue(input: Record<string, unknown>): object {
    const id = String(input.SecretId ?? '');
    const value = config.secrets[id];
    if (value === undefined) throw new Fault('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return { ARN: `arn:aws:secretsmanager:us-east-1:${ACCOUNT}:secret:${id}`, Name: id, SecretString: value, VersionId: 'v1', VersionStages: ['AWSCURRENT'] };
  }

  function getParameter(input: Record<string, unknown>): object {
    const name = String(input.Name ?? '');
    const parameter = config.parameters[name];
    if (!parameter) throw new Fault('ParameterNotFound', `Parameter ${name} not found.`);
    const decrypted = parameter.type !== 'SecureString' || input.WithDecryption === true;
    const value = decrypted ? parameter.value : Buffer.from(`sealed:${parameter.value}`).toString('base64');
    return { Parameter: { Name: name, Type: parameter.type, Value: value, Version: 1, ARN: `arn:aws:ssm:us-east-1:${ACCOUNT}:parameter${name}` } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    if (req.method === 'PUT' && req.url === CONFIG_PATH) {
      config = JSON.parse(body) as AwsIdentityStandInConfig;
      res.writeHead(204).end();
      return;
    }
    const target = String(req.headers['x-amz-target'] ?? '');
    if (!target) {
      try {
        const form = new URLSearchParams(body);
        if (form.get('Action') !== 'AssumeRoleWithWebIdentity') throw new Fault('InvalidAction', `Could not find operation ${form.get('Action')}`);
        const xml = await assumeRole(form);
        res.writeHead(200, { 'content-type': 'text/xml' }).end(xml);
      } catch (error) {
        const fault = error instanceof Fault ? error : new Fault('InternalFailure', (error as Error).message, 500);
        const xml = `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${fault.code}</Code><Message>${fault.message.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</Message></Error><RequestId>r</RequestId></ErrorResponse>`;
        res.writeHead(fault.status, { 'content-type': 'text/xml' }).end(xml);
      }
      return;
    }
    try {
      const operations: Record<string, { service: string; run: (input: Record<string, unknown>) => object }> = {
        'secretsmanager.GetSecretValue': { service: 'secretsmanager', run: getSecretValue },
        'AmazonSSM.GetParameter': { service: 'ssm', run: getParameter },
      };
      const operation = operations[target];
      if (!operation) throw new Fault('UnknownOperationException', `Unknown operation ${target}`);
      await verifySignature(req, body, operation.service);
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(operation.run(JSON.parse(body) as Record<string, unknown>)));
    } catch (error) {
      const fault = error instanceof Fault ? error : new Fault('InternalFailure', (error as Error).message, 500);
      res.writeHead(fault.status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ __type: fault.code, message: fault.message }));
    }
  }

  return createServer((req, res) => void handle(req, res));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createAwsIdentityServer(JSON.parse(process.env.STACKYARD_AWS_STAND_IN ?? '{"roles":[],"secrets":{},"parameters":{}}') as AwsIdentityStandInConfig);
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`READY ${typeof address === 'object' && address ? address.port : ''}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
