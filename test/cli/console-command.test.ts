import { afterAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

describe('stackyard console', () => {
  afterAll(() => removeSandboxes());

  it('says the command needs a service and exits 0 on a local backend, as pulumi console does', async () => {
    const sandbox = new CliSandbox();
    expect((await sandbox.run(sandbox.root, ['login', '--local'])).status).toBe(0);
    const dir = sandbox.project('app', 'name: app\nruntime: nodejs\n');
    expect((await sandbox.run(dir, ['stack', 'init', 'dev'])).status).toBe(0);

    const result = await sandbox.run(dir, ['console', '--print-url']);

    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^This command is not available for your backend\. .*stackyard serve/);
  });
});
