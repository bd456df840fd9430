/**
 * The project's config schema (`config:` in Pulumi.yaml) through the bundled CLI on `login --local`, with Pulumi's
 * own `config_flag` and `config_skip_validation` integration programs (tests/integration, with the assertions of
 * their Go tests TestConfigFlag, TestRefreshDestroySkipConfigValidationByDefault and TestSkipConfigValidation).
 * Needs `npm run build`.
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

  function importProgram(name: string, folder = name.replaceAll('_', '-')): string {
    const dir = sandbox.project(folder, readFileSync(join(FIXTURES, name, 'Pulumi.yaml'), 'utf8'));
    copyFileSync(join(FIXTURES, name, 'index.ts'), join(dir, 'index.ts'));
    return dir;
  }

  it('config_flag (TestConfigFlag): a required key given with -c reaches the program and the stack file, on up and on refresh and destroy --run-program; missing, each refuses', async () => {
    // Arrange
    const project = importProgram('config_flag');
    const cli = (...args: string[]) => sandbox.run(project, args);
    const configPath = join(project, 'Pulumi.config-flag-test.yaml');
    await cli('stack', 'init', 'config-flag-test');

    // Act
    const up = await cli('up', '--skip-preview', '--yes', '--config', 'config-flag:example=an-example');
    const afterUp = readFileSync(configPath, 'utf8');
    rmSync(configPath);
    const missingUp = await cli('up', '--skip-preview', '--yes');
    const missingRefresh = await cli('refresh', '--run-program', '--yes');
    const refresh = await cli('refresh', '--run-program', '--yes', '--config', 'config-flag:example=an-example');
    const afterRefresh = readFileSync(configPath, 'utf8');
    rmSync(configPath);
    const missingDestroy = await cli('destroy', '--run-program', '--yes');
    const destroy = await cli('destroy', '--run-program', '--yes', '--config', 'config-flag:example=an-example');
    const afterDestroy = readFileSync(configPath, 'utf8');

    // Assert
    expect(up.status, up.stderr).toBe(0);
    expect(up.stdout).toContain('an-example');
    expect(afterUp).toContain('config-flag:example: an-example');
    for (const missing of [missingUp, missingRefresh, missingDestroy]) {
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toContain("validating stack config: Stack 'config-flag-test' is missing configuration value 'config-flag:example'");
    }
    expect(missingUp.stdout).not.toContain('Missing required configuration');
    expect(refresh.status, refresh.stderr).toBe(0);
    expect(refresh.stdout).toContain('an-example');
    expect(afterRefresh).toContain('config-flag:example: an-example');
    expect(destroy.status, destroy.stderr).toBe(0);
    expect(destroy.stdout).toContain('an-example');
    expect(afterDestroy).toContain('config-flag:example: an-example');
  });

  it('config_flag (TestRefreshDestroySkipConfigValidationByDefault): without --run-program, refresh and destroy neither run the program nor validate', async () => {
    // Arrange
    const project = importProgram('config_flag', 'config-flag-by-default');
    const cli = (...args: string[]) => sandbox.run(project, args);
    await cli('stack', 'init', 'by-default');
    await cli('up', '--skip-preview', '--yes', '--config', 'config-flag:example=an-example');
    rmSync(join(project, 'Pulumi.by-default.yaml'));

    // Act
    const refresh = await cli('refresh', '--yes');
    const destroy = await cli('destroy', '--yes');
    const runProgram = await cli('refresh', '--run-program', '--yes');
    const fromEnv = await sandbox.run(project, ['refresh', '--yes'], { env: { PULUMI_RUN_PROGRAM: 'true' } });

    // Assert
    expect(refresh.status, refresh.stderr).toBe(0);
    expect(refresh.stdout).not.toContain('an-example');
    expect(destroy.status, destroy.stderr).toBe(0);
    expect(runProgram.status).not.toBe(0);
    expect(runProgram.stderr).toContain('validating stack config');
    expect(fromEnv.status).not.toBe(0);
    expect(fromEnv.stderr).toContain('validating stack config');
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
    const refresh = await cli(['refresh', '--run-program', '--skip-config-validation', '--yes']);
    const envUp = await cli(['up', '--skip-preview', '--yes'], { PULUMI_OPTION_SKIP_CONFIG_VALIDATION: 'true' });
    const destroy = await cli(['destroy', '--run-program', '--yes', '--skip-config-validation']);

    // Assert
    expect(preview.status).not.toBe(0);
    expect(preview.stderr).toContain('validating stack config');
    expect(up.status).not.toBe(0);
    expect(up.stderr).toContain('validating stack config');
    expect(skippedPreview.status, skippedPreview.stderr).toBe(0);
    expect(skippedUp.status, skippedUp.stderr).toBe(0);
    expect(skippedUp.stdout).toContain('config-skip-validation program ran');
    expect(refresh.status, refresh.stderr).toBe(0);
    expect(refresh.stdout).toContain('config-skip-validation program ran');
    expect(envUp.status, envUp.stderr).toBe(0);
    expect(destroy.status, destroy.stderr).toBe(0);
    expect(destroy.stdout).toContain('config-skip-validation program ran');
  });
});
