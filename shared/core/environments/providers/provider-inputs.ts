/** What the AWS providers share: their inputs read back as plain JSON, the login input and its schema, durations. */
import { toJSON, type EscValue, type JSONSchema, type JsonValue } from '../../../esc/index.js';
import type { AwsCredentials } from '../../../ports/aws-provider-api.js';

/** The inputs a provider was opened with, secrets revealed (they go to AWS, never back to the caller). */
export function plainInputs(inputs: Record<string, EscValue>): Record<string, JsonValue> {
  return Object.fromEntries(Object.entries(inputs).map(([key, value]) => [key, toJSON(value, false)]));
}

/** `login:` of aws-secrets and aws-parameter-store: what aws-login returns (`${aws.login}`), or keys written out. */
export const LOGIN_SCHEMA = {
  type: 'object',
  properties: {
    accessKeyId: { type: 'string' },
    secretAccessKey: { type: 'string', secret: true },
    sessionToken: { type: 'string', secret: true },
  },
  required: ['accessKeyId', 'secretAccessKey'],
};

/** The credentials of a checked `login` input. */
export function loginCredentials(login: JsonValue | undefined): AwsCredentials {
  const fields = (login ?? {}) as Record<string, JsonValue>;
  return {
    accessKeyId: String(fields.accessKeyId),
    secretAccessKey: String(fields.secretAccessKey),
    ...(typeof fields.sessionToken === 'string' && fields.sessionToken !== '' ? { sessionToken: fields.sessionToken } : {}),
  };
}

const DURATION_PART = /(\d+(?:\.\d+)?)(h|m|s)/gy;
const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/** A Go duration of hours, minutes and seconds (`1h`, `45m`, `1h30m`, `900s`) in whole seconds; `undefined` if malformed. */
export function durationSeconds(text: string): number | undefined {
  DURATION_PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = DURATION_PART.exec(text); match; match = DURATION_PART.exec(text)) {
    total += Number(match[1]) * UNIT_SECONDS[match[2]!]!;
    consumed = DURATION_PART.lastIndex;
  }
  return text.length > 0 && consumed === text.length ? Math.floor(total) : undefined;
}

/**
 * The inputs of a reader of AWS values (aws-secrets, aws-parameter-store): `region`, `login`, and `get`, a map of
 * result names to entries with these properties (`required` among them).
 */
export function readerInputSchema(entry: Record<string, JSONSchema>, required: string[]): JSONSchema {
  return {
    type: 'object',
    properties: {
      region: { type: 'string', description: 'The AWS region to use.' },
      login: LOGIN_SCHEMA,
      get: { type: 'object', additionalProperties: { type: 'object', properties: entry, required } },
    },
    required: ['region', 'login', 'get'],
  };
}
