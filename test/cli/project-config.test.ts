/**
 * The project's config schema (`config:` in Pulumi.yaml) through the bundled CLI on `login --local`, with Pulumi's
 * own `config_flag` and `config_skip_validation` integration programs (tests/integration, their Go tests'
 * assertions for what stackyard implements: refresh and destroy never run the program here). Needs `npm run build`.
 */
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliSandbox, REPO, removeSandboxes } from './cli-harness.js';

const FIXTURES = join(REPO, 'test/fixtures/pulumi-integration');

describe('project config schema', () => {
  const sandbox = new CliSandbox();

  beforeAll(async () => {
    await sandbox.run(sandbox.root, ['login', '--local']);
  });
  afterAll(removeSandboxes);

  function importProgram(name: string): string {
    const dir = sandbox.project(name.replaceAll('_', '-'), readFileSync(join(FIXTURES, name, 'Pulumi.yaml'), 'utf8'));
    copyFileSync(join(FIXTURES, name, 'index.ts'), join(dir, 'index.ts'));
    return dir;
  }

  it('config_flag: a required key set with -c reaches the program and the stack file; missing, up refuses before the program runs', async () => {
    // Arrange
    const project = importProgram('config_flag');
    const cli = (...args: string[]) => sandbox.run(project, args);
    await cli('stack', 'init', 'config-flag-test');

    // Act
    const up = await cli('up', '--skip-preview', '--yes', '--config', 'config-flag:example=an-example');
    const configFile = readFileSync(join(project, 'Pulumi.config-flag-test.yaml'), 'utf8');
    rmSync(join(project, 'Pulumi.config-flag-test.yaml'));
    const missing = await cli('up', '--skip-preview', '--yes');
    const refresh = await cli('refresh', '--yes');
    const destroy = await cli('destroy', '--yes');

    // Assert
    expect(up.status, up.stderr).toBe(0);
    expect(up.stdout).toContain('an-example');
    expect(configFile).toContain('config-flag:example: an-example');
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toContain("validating stack config: Stack 'config-flag-test' is missing configuration value 'config-flag:example'");
    expect(missing.stdout).not.toContain('Missing required configuration');
    expect(refresh.status, refresh.stderr).toBe(0);
    expect(destroy.status, destroy.stderr).toBe(0);
  });

  it('config_skip_validation: preview and up refuse a missing required key unless --skip-config-validation or PULUMI_OPTION_SKIP_CONFIG_VALIDATION', async () => {
    // Arrange
    const project = importProgram('config_skip_validation');
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => sandbox.run(project, args, { env });
    await cli(['stack', 'init', 'skip-validation-test']);

    // Act
    const preview = await cli(['preview']);
    const up = await cli(['up', '--skip-preview', '--yes']);
    const skippedPreview = await cli(['preview', '--skip-config-validation']);
    const skippedUp = await cli(['up', '--skip-preview', '--yes', '--skip-config-validation']);
    const envUp = await cli(['up', '--skip-preview', '--yes'], { PULUMI_OPTION_SKIP_CONFIG_VALIDATION: 'true' });
    const destroy = await cli(['destroy', '--yes', '--skip-config-validation']);

    // Assert
    expect(preview.status).not.toBe(0);
    expect(preview.stderr).toContain('validating stack config');
    expect(up.status).not.toBe(0);
    expect(up.stderr).toContain('validating stack config');
    expect(skippedPreview.status, skippedPreview.stderr).toBe(0);
    expect(skippedUp.status, skippedUp.stderr).toBe(0);
    expect(skippedUp.stdout).toContain('config-skip-validation program ran');
    expect(envUp.status, envUp.stderr).toBe(0);
    expect(destroy.status, destroy.stderr).toBe(0);
  });
});
