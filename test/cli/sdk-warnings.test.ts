/**
 * The AWS SDK's Node-version warning never reaches a stackyard user: on Node 20 the bundled CLI drops it (on Node 22
 * and later the SDK does not emit it at all). The control run shows the SDK does warn in a plain process on Node 20.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/processes.js';

const BUNDLE = fileURLToPath(new URL('../../dist/cli/stackyard.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'stackyard-sdk-warning-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

describe('AWS SDK warnings', () => {
  it('prints no NodeVersionSupportWarning from the CLI, which builds SDK clients (serve on aws storage)', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      STACKYARD_HOME: home,
      STACKYARD_STORAGE: 'aws',
      STACKYARD_TABLE: 't',
      STACKYARD_BUCKET: 'b',
      STACKYARD_KMS_KEY_ID: 'k',
      AWS_ENDPOINT_URL_DYNAMODB: closed,
      AWS_ENDPOINT_URL_S3: closed,
      AWS_ENDPOINT_URL_KMS: closed,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'x',
      STACKYARD_ADMIN_TOKEN: 'sdk-warning-token',
    };
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    delete env.NODE_OPTIONS;

    const cli = spawnSync(process.execPath, [BUNDLE, 'serve', '--port', '0'], { env, encoding: 'utf8', timeout: 60_000 });
    const control = spawnSync(
      process.execPath,
      ['-e', "new (require('@aws-sdk/client-dynamodb').DynamoDBClient)({ region: 'us-east-1' })"],
      { env, cwd: ROOT, encoding: 'utf8', timeout: 60_000 },
    );

    expect(cli.status).not.toBe(0);
    expect(cli.stderr).toMatch(/DynamoDB is unavailable|unavailable/i);
    expect(cli.stderr).not.toContain('NodeVersionSupportWarning');
    if (NODE_MAJOR < 22) expect(control.stderr).toContain('NodeVersionSupportWarning');
    else expect(control.stderr).not.toContain('NodeVersionSupportWarning');
  }, 90_000);
});
