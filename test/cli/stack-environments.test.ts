/**
 * A stack that imports ESC environments (`environment:` in `Pulumi.<stack>.yaml`), run by the bundled CLI against
 * `stackyard serve`: a real Node program sees the environments' merged `pulumiConfig` under the stack's own config and
 * their `environmentVariables` and `files` (temporary files, removed after); a secret from an environment stays
 * encrypted at rest (needs `npm run build`).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes, startServe, stopServe } from './cli-harness.js';

const SECRET = `env-secret-${randomBytes(6).toString('hex')}`;

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('a stack with `environment:` through `stackyard serve`', () => {
  const adminToken = `sy_${randomBytes(24).toString('hex')}`;
  const server = new CliSandbox();
  const sandbox = new CliSandbox();
  let serve: ChildProcess;
  let url: string;

  const esc = async (method: string, path: string, body?: string) => {
    const response = await fetch(`${url}/api/esc/environments/${path}`, { method, body, headers: { authorization: `token ${adminToken}` } });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
  };

  beforeAll(async () => {
    ({ url, serve } = await startServe(server, adminToken));
  });

  afterAll(async () => {
    if (serve) await stopServe(serve);
    removeSandboxes();
  });

  it('gives the program the merged config (stack values win) and environment variables, secrets kept secret', async () => {
    const project = sandbox.project('envapp', 'name: envapp\nruntime: nodejs\n', {
      'index.js':
        "const pulumi = require('@pulumi/pulumi');\n" +
        "const cfg = new pulumi.Config();\n" +
        "exports.region = cfg.require('region');\n" +
        "exports.size = cfg.require('size');\n" +
        "exports.tier = cfg.require('tier');\n" +
        "exports.tags = cfg.requireObject('tags');\n" +
        "exports.password = cfg.requireSecret('password');\n" +
        "exports.isSecret = cfg.requireSecret('password').apply((p) => p.length > 0);\n" +
        "exports.fromEnv = process.env.APP_MODE;\n" +
        "const fs = require('fs');\n" +
        "exports.certPath = process.env.APP_CERT;\n" +
        "exports.cert = fs.readFileSync(process.env.APP_CERT, 'utf8');\n" +
        "exports.certMode = (fs.statSync(process.env.APP_CERT).mode & 0o777).toString(8);\n" +
        "exports.key = pulumi.secret(fs.readFileSync(process.env.APP_KEY, 'utf8'));\n",
    });
    const cli = (...args: string[]) => sandbox.run(project, args);
    expect((await sandbox.run(project, ['login', url], { env: { STACKYARD_ACCESS_TOKEN: adminToken } })).status).toBe(0);
    expect((await cli('org', 'create', 'acme')).status).toBe(0);
    await esc('POST', 'acme', JSON.stringify({ project: 'shared', name: 'base' }));
    await esc('PATCH', 'acme/shared/base', 'values:\n  pulumiConfig:\n    region: eu-west-1\n    size: small\n    tags: { team: core, tier: base }\n  environmentVariables:\n    APP_MODE: base\n  files:\n    APP_CERT: cert-${pulumiConfig.region}\n');
    await esc('POST', 'acme', JSON.stringify({ project: 'default', name: 'prod' }));
    await esc('PATCH', 'acme/default/prod', `values:\n  pulumiConfig:\n    size: large\n    tier: gold\n    tags: { tier: prod }\n    password:\n      fn::secret: ${SECRET}\n  environmentVariables:\n    APP_MODE: production\n  files:\n    APP_KEY: \${pulumiConfig.password}\n`);
    expect((await cli('stack', 'init', 'acme/dev')).status).toBe(0);
    writeFileSync(join(project, 'Pulumi.dev.yaml'), 'environment:\n  - shared/base\n  - prod\nconfig:\n  envapp:tier: silver\n');

    const up = await cli('up', '--yes', '--skip-preview');
    const outputs = await cli('stack', 'output', '--json', '--show-secrets');
    const exported = await cli('stack', 'export');

    expect(up.status, up.stderr).toBe(0);
    const { certPath, ...values } = JSON.parse(outputs.stdout);
    expect(existsSync(certPath), 'the files are removed when the CLI exits').toBe(false);
    expect(values).toEqual({
      region: 'eu-west-1',
      size: 'large',
      tier: 'silver',
      tags: { team: 'core', tier: 'prod' },
      password: SECRET,
      isSecret: true,
      fromEnv: 'production',
      cert: 'cert-eu-west-1',
      certMode: '600',
      key: SECRET,
    });
    expect(exported.stdout).not.toContain(SECRET);
    expect(JSON.parse(exported.stdout).deployment.resources[0].outputs.password.ciphertext).toEqual(expect.any(String));
    const atRest = filesUnder(server.root).filter((file) => readFileSync(file).includes(SECRET));
    expect(atRest).toEqual([]);
  });

  it('names the environment it cannot open', async () => {
    const project = sandbox.project('envmissing', 'name: envmissing\nruntime: nodejs\n', { 'index.js': '' });
    const cli = (...args: string[]) => sandbox.run(project, args);
    expect((await cli('stack', 'init', 'acme/dev')).status).toBe(0);
    writeFileSync(join(project, 'Pulumi.dev.yaml'), 'environment:\n  - nowhere/missing\n');

    const up = await cli('up', '--yes', '--skip-preview');

    expect(up.status).toBe(1);
    expect(up.stderr).toContain("Pulumi.dev.yaml: `environment`: cannot open environment 'acme/nowhere/missing'");
  });
});
