/**
 * `stackyard config --open` and `config get` show a stack's configuration with the values of its ESC environments
 * under its own, as `pulumi config` does, on `stackyard serve` and `login --local` (needs `npm run build`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-harness.js';
import { serveAndLocalBackends } from './serve-and-local.js';

const SECRET = 'open-sesame-9271';

describe.each(serveAndLocalBackends())('config --open on $name', (backend) => {
  const sandbox = new CliSandbox();

  it('merges the environments\' pulumiConfig under the stack\'s own, secrets hidden unless shown, with the variables', async () => {
    const project = sandbox.project('cfgopen', 'name: cfgopen\nruntime: nodejs\n');
    const cli = (...args: string[]) => sandbox.run(project, args);
    await backend.login(sandbox, project);
    if (backend.name === 'serve') {
      expect((await cli('org', 'create', 'acme')).status).toBe(0);
      expect((await cli('org', 'set-default', 'acme')).status).toBe(0);
    }
    const definition =
      `values:\n  pulumiConfig:\n    region: eu-west-1\n    size: large\n    password:\n      fn::secret: ${SECRET}\n    tags: {team: core}\n` +
      '  environmentVariables:\n    MODE: prod\n    TOKEN: ${pulumiConfig.password}\n  files:\n    CERT: pem-${pulumiConfig.region}\n';
    expect((await sandbox.run(project, ['env', 'init', 'shared/base', '-f', '-'], { input: definition })).status).toBe(0);
    expect((await cli('stack', 'init', 'dev')).status).toBe(0);
    writeFileSync(join(project, 'Pulumi.dev.yaml'), 'environment:\n  - shared/base\nconfig:\n  cfgopen:region: us-east-2\n');

    const closed = await cli('config');
    const open = await cli('config', '--open');
    const shown = await cli('config', '--show-secrets');
    const json = await cli('config', '--open', '--json');
    const getSecret = await cli('config', 'get', 'password');
    const getOwn = await cli('config', 'get', 'region');
    const getObject = await cli('config', 'get', 'tags', '--json');
    const getClosed = await cli('config', 'get', 'size', '--open=false');

    // As Pulumi: without --open the environments are checked, not opened, and a file's path is `[unknown]`.
    const keys = 'KEY       VALUE\npassword  [secret]\nregion    us-east-2\nsize      large\ntags      {"team":"core"}\n\n';
    expect(closed.stdout).toBe(`${keys}ENVIRONMENT VARIABLE  VALUE\nMODE                  prod\nTOKEN                 [secret]\nCERT                  [unknown]\n`);
    expect(open.status, open.stderr).toBe(0);
    // Opened, each file is written (and left, as Pulumi leaves it) and listed by its path.
    const certPath = /\nCERT {18}(\S+)\n$/.exec(open.stdout)?.[1];
    expect(open.stdout).toBe(`${keys}ENVIRONMENT VARIABLE  VALUE\nMODE                  prod\nTOKEN                 [secret]\nCERT                  ${certPath}\n`);
    expect(readFileSync(certPath!, 'utf8')).toBe('pem-eu-west-1');
    expect(shown.stdout).toContain(`password  ${SECRET}\n`);
    expect(shown.stdout).toContain(`TOKEN                 ${SECRET}\n`);
    expect(JSON.parse(json.stdout)).toEqual({
      'cfgopen:password': { secret: true },
      'cfgopen:region': { value: 'us-east-2', secret: false },
      'cfgopen:size': { value: 'large', secret: false },
      'cfgopen:tags': { value: '{"team":"core"}', objectValue: { team: 'core' }, secret: false },
    });
    expect(getSecret.stdout).toBe(`${SECRET}\n`);
    expect(getOwn.stdout).toBe('us-east-2\n');
    expect(JSON.parse(getObject.stdout)).toEqual({ value: '{"team":"core"}', objectValue: { team: 'core' }, secret: false });
    expect(getClosed.status).toBe(1);
    expect(getClosed.stderr).toContain("configuration key 'size' not found");
  });
});
