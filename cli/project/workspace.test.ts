import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Project } from './project.js';
import { selectedStack, selectStack } from './workspace.js';

const homes: string[] = [];
afterEach(() => homes.splice(0).forEach((home) => rmSync(home, { recursive: true, force: true })));

function project(file: string): Project {
  return { dir: join(file, '..'), file, name: 'web', raw: {}, config: [], stackConfigDir: join(file, '..') };
}

describe('workspace files', () => {
  it('are named as Pulumi names them: the project name and the SHA-1 of the project file\'s path', async () => {
    // Arrange
    const home = mkdtempSync(join(tmpdir(), 'stackyard-workspace-'));
    homes.push(home);
    const env = { STACKYARD_HOME: home };
    const file = '/srv/checkouts/web-ü/Pulumi.yaml';

    // Act
    await selectStack(project(file), 'file:///backend', 'organization/web/dev', env);

    // Assert
    const sha1 = createHash('sha1').update(file).digest('hex');
    expect(readdirSync(join(home, 'workspaces'))).toEqual([`web-${sha1}-workspace.json`]);
    expect(await selectedStack(project(file), 'file:///backend', env)).toBe('organization/web/dev');
    expect(await selectedStack(project('/srv/other/Pulumi.yaml'), 'file:///backend', env)).toBeUndefined();
  });
});
