import { describe, expect, it } from 'vitest';
import { validateBody } from './decode.js';
import { loginCodeSchema, signInSchema } from './routes/console.js';
import { untypedDeploymentSchema } from './schemas.js';
import { createUserSchema } from './schemas-identity.js';
import { encryptSchema } from './schemas-secrets.js';
import { rollbackSchema, tagsSchema } from './schemas-stacks.js';
import { completeUpdateSchema, renewLeaseSchema } from './schemas-updates.js';

/** The message of the 400 `validateBody` refuses `body` with. */
function refusal(schema: Parameters<typeof validateBody>[0], body: unknown): string {
  try {
    validateBody(schema, body, 'request');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(body)} was accepted`);
}

/*
 * The request schemas are zod/mini's, which has no messages of its own. These are the answers the routes gave when
 * the schemas were classic zod (the whole corpus of 10,098 refusals, one per field and kind of wrong value, read the
 * same before and after), one per kind of check: zod's English messages where a schema gives none, and ours.
 */
describe('request schema refusals', () => {
  it.each([
    ['a body that is not an object', createUserSchema, null, "Invalid request: the body: Invalid input: expected object, received null."],
    ['a missing field with its own message', createUserSchema, {}, "Invalid request: field 'login': must be the new user's login."],
    ['a map value of the wrong type', tagsSchema, { team: 1 }, "Invalid request: field 'team': Invalid input: expected string, received number."],
    ['a number that is not whole', renewLeaseSchema, { duration: 1.5 }, "Invalid request: field 'duration': Invalid input: expected int, received number."],
    ['a negative number of seconds', renewLeaseSchema, { duration: -1 }, "Invalid request: field 'duration': must be a number of seconds."],
    ['a version below 1', rollbackSchema, { version: 0 }, "Invalid request: field 'version': must be 1 or more."],
    ['a version that is not whole', rollbackSchema, { version: 1.5 }, "Invalid request: field 'version': must be the version to restore."],
    ['a deployment version above 4', untypedDeploymentSchema, { version: 5, deployment: {} }, "Invalid request: field 'version': must be a deployment schema version (1 to 4)."],
    ['a value not in the enum', completeUpdateSchema, { status: 'done' }, "Invalid request: field 'status': must be 'succeeded', 'failed' or 'cancelled'."],
    ['a string that is not base64', encryptSchema, { plaintext: 'x' }, "Invalid request: field 'plaintext': must be standard base64 with padding."],
    ['a string over its length', loginCodeSchema, { path: 'a'.repeat(513) }, "Invalid request: field 'path': Too big: expected string to have <=512 characters."],
    ['an unknown key in a strict object', loginCodeSchema, { path: '/', extra: 1 }, 'Invalid request: the body: Unrecognized key: "extra".'],
    ['no member of a union', signInSchema, { password: 'x' }, 'Invalid request: the body: Invalid input.'],
  ])('%s', (_what, schema, body, message) => {
    expect(refusal(schema, body)).toBe(message);
  });
});
