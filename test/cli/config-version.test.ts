/**
 * `stackyard config --version <n>` (pulumi/pulumi#9983) through the bundled CLI, on `stackyard serve` and on
 * `login --local`: the config recorded with version n's update, secrets as `[secret]` unless `--show-secrets`
 * (needs `npm run build`).
 */
import { describe, expect, it } from 'vitest';
import { CliSandbox } from './cli-harness.js';
import { serveAndLocalBackends } from './serve-and-local.js';

const backends = serveAndLocalBackends();

describe.each(backends)('config --version on $name', (backend) => {
  it("shows each version's recorded config, not the file's, and refuses a version the stack never had", async () => {
    const sandbox = new CliSandbox();
    const project = sandbox.project('demo', 'name: demo\nruntime: nodejs\n', { 'index.js': '' });
    const cli = (...args: string[]) => sandbox.run(project, args, { env: { PULUMI_CONFIG_PASSPHRASE: '' } });
    await backend.login(sandbox, project);
    await cli('stack', 'init', 'dev');
    await cli('config', 'set', 'greeting', 'hello');
    await cli('config', 'set', '--secret', 'token', 's3cr3t');
    expect((await cli('up', '--yes', '--skip-preview')).status).toBe(0);
    await cli('config', 'set', 'greeting', 'bye');
    expect((await cli('up', '--yes', '--skip-preview')).status).toBe(0);
    await cli('config', 'set', 'greeting', 'not yet deployed');

    const first = await cli('config', '--version', '1');
    const second = await cli('config', '--version', '2', '--json', '--show-secrets');
    const unknown = await cli('config', '--version', '7');

    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe('KEY       VALUE\ngreeting  hello\ntoken     [secret]\n');
    expect(JSON.parse(second.stdout)).toEqual({ 'demo:greeting': { value: 'bye', secret: false }, 'demo:token': { value: 's3cr3t', secret: true } });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/stack '.*dev' has no version 7: it is at version 2/);
  });
});
