/**
 * `fn::open::aws-login` (ESC's schema): `oidc: {roleArn, sessionName, duration?, policyArns?}` signs an ID token for
 * the environment being opened and exchanges it with STS `AssumeRoleWithWebIdentity`; `static: {accessKeyId,
 * secretAccessKey, sessionToken?}` passes keys through. Either way the result is `{accessKeyId, secretAccessKey,
 * sessionToken}`, the last two secret. Token claims, as Pulumi ESC's: `sub` =
 * `pulumi:environments:org:<org>:env:<project>/<env>` of the environment opened (the root, even when the login is
 * imported; `<env>` alone in the legacy `default` project), `aud` = `aws:<org>` (`<org>` for the `default` project,
 * as ESC keeps for older environments). With `subjectAttributes` the subject is
 * `pulumi:environments:pulumi.organization.login:<org>` followed by `:<attribute>:<value>` for each attribute named,
 * in order (ESC's docs, "Customizing OIDC claims").
 */
import { escValue, type EscExecContext, type EscProvider, type EscValue } from '../../../esc/index.js';
import type { ServiceDeps } from '../../kernel/deps.js';
import { AwsCallError, type AwsProviderApi } from '../../../ports/aws-provider-api.js';
import { signIdToken } from '../issuer/index.js';
import { durationSeconds, LOGIN_SCHEMA, plainInputs } from './provider-inputs.js';

/** AWS's shortest role session. */
export const MIN_SESSION_SECONDS = 15 * 60;
/** Credentials from an environment are short-lived: one hour at most (also the default). */
export const MAX_SESSION_SECONDS = 60 * 60;

const OUTPUT_SCHEMA = { ...LOGIN_SCHEMA, required: ['accessKeyId', 'secretAccessKey', 'sessionToken'] };

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    oidc: {
      type: 'object',
      properties: {
        roleArn: { type: 'string', description: 'The ARN of the role to assume.' },
        sessionName: { type: 'string', description: 'The name of the role session.' },
        duration: { type: 'string', description: 'The duration of the role session (15m to 1h; default 1h).' },
        policyArns: { type: 'array', items: { type: 'string' }, description: 'ARNs of policies that further restrict the session.' },
        subjectAttributes: { type: 'array', items: { type: 'string' }, description: 'The attributes that form the token\'s subject, in order.' },
      },
      required: ['roleArn', 'sessionName'],
    },
    static: LOGIN_SCHEMA,
  },
  // Exactly one of oidc and static. Unknown properties are ignored, as ESC's schemas ignore them.
  minProperties: 1,
  maxProperties: 1,
};

/** The attributes `subjectAttributes` may name (ESC's). */
export const SUBJECT_ATTRIBUTES = ['rootEnvironment.name', 'currentEnvironment.name', 'pulumi.user.login', 'pulumi.organization.login'] as const;

/** What the subject's attributes are read from: the environment opened first, the one defining the login, the caller. */
export interface SubjectSources {
  rootEnvironment: string;
  currentEnvironment: string;
  userLogin: string;
}

/** An environment's name in a subject: `<project>/<env>`, or `<env>` alone in the legacy `default` project (as ESC). */
const subjectName = (environment: string) => (environment.startsWith('default/') ? environment.slice('default/'.length) : environment);

/**
 * The `sub` and `aud` of the ID token aws-login signs for `org`: the default subject names the root environment;
 * `attributes` (subjectAttributes) make the custom one, each attribute read from `sources`.
 */
export function awsLoginClaims(org: string, sources: SubjectSources, attributes?: readonly string[]): { subject: string; audience: string } {
  const audience = sources.rootEnvironment.split('/')[0] === 'default' ? org : `aws:${org}`;
  if (attributes === undefined || attributes.length === 0) return { subject: `pulumi:environments:org:${org}:env:${subjectName(sources.rootEnvironment)}`, audience };
  const values: Record<(typeof SUBJECT_ATTRIBUTES)[number], string> = {
    'rootEnvironment.name': subjectName(sources.rootEnvironment),
    'currentEnvironment.name': subjectName(sources.currentEnvironment),
    'pulumi.user.login': sources.userLogin,
    'pulumi.organization.login': org,
  };
  const parts = attributes.map((attribute) => {
    if (!(SUBJECT_ATTRIBUTES as readonly string[]).includes(attribute)) {
      throw new Error(`aws-login: unknown subject attribute '${attribute.slice(0, 60)}': use ${SUBJECT_ATTRIBUTES.join(', ')}`);
    }
    return `${attribute}:${values[attribute as keyof typeof values]}`;
  });
  return { subject: [`pulumi:environments:pulumi.organization.login:${org}`, ...parts].join(':'), audience };
}

/** The caller's login from the evaluation context (`${context.pulumi.user.login}`). */
function userLogin(context: EscExecContext): string {
  const pulumi = context.values.pulumi?.value as Record<string, EscValue> | undefined;
  const user = pulumi?.user?.value as Record<string, EscValue> | undefined;
  return String(user?.login?.value ?? '');
}

function credentialsValue(accessKeyId: string, secretAccessKey: string, sessionToken: string): EscValue {
  return {
    value: {
      accessKeyId: escValue(accessKeyId),
      secretAccessKey: escValue(secretAccessKey, { secret: true }),
      sessionToken: escValue(sessionToken, { secret: true }),
    },
  };
}

/** The aws-login provider of environments in `org`. */
export function awsLoginProvider(deps: ServiceDeps, org: string, api: AwsProviderApi): EscProvider {
  return {
    inputSchema: INPUT_SCHEMA,
    outputSchema: OUTPUT_SCHEMA,
    async open(inputs, context) {
      const plain = plainInputs(inputs);
      if (plain.static) {
        const keys = plain.static as Record<string, string>;
        return credentialsValue(keys.accessKeyId!, keys.secretAccessKey!, keys.sessionToken ?? '');
      }
      const oidc = plain.oidc as { roleArn: string; sessionName: string; duration?: string; policyArns?: string[]; subjectAttributes?: string[] };
      const seconds = oidc.duration === undefined ? MAX_SESSION_SECONDS : durationSeconds(oidc.duration);
      if (seconds === undefined || seconds < MIN_SESSION_SECONDS || seconds > MAX_SESSION_SECONDS) {
        throw new Error(`aws-login: duration '${String(oidc.duration).slice(0, 40)}' must be from 15m to 1h (credentials from an environment are short-lived)`);
      }
      const sources = { rootEnvironment: context.rootEnvironment, currentEnvironment: context.currentEnvironment, userLogin: userLogin(context) };
      const claims = awsLoginClaims(org, sources, oidc.subjectAttributes);
      const token = await signIdToken(deps, claims);
      try {
        const issued = await api.assumeRoleWithWebIdentity(
          { roleArn: oidc.roleArn, sessionName: oidc.sessionName, webIdentityToken: token, durationSeconds: seconds, ...(oidc.policyArns ? { policyArns: oidc.policyArns } : {}) },
        );
        return credentialsValue(issued.accessKeyId, issued.secretAccessKey, issued.sessionToken!);
      } catch (error) {
        if (!(error instanceof AwsCallError)) throw error;
        throw new Error(
          `aws-login: could not assume role '${oidc.roleArn}' with the environment's OIDC token (sub '${claims.subject}', aud '${claims.audience}'): ${error.code}: ${error.awsMessage}. Check the role's trust policy (docs/environments.md, "Providers").`,
        );
      }
    },
  };
}
