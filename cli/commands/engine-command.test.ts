import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UntypedDeployment } from '../engine/state/deployment.js';
import type { OperationBackend } from '../engine/operation-types.js';
import { testCrypter } from '../../test/engine/engine-harness.js';
import { declareEngineCommand, type ResolveEngineStack } from './engine-command.js';
import { programFromProject } from './engine-program.js';

const FIXTURES = resolve(import.meta.dirname, '../../test/fixtures');

describe('programFromProject', () => {
  it('reads main, nodejs runtime options and declared plugins', () => {
    const { program, projectPlugins } = programFromProject(
      { name: 'p', main: 'src/', runtime: { name: 'nodejs', options: { typescript: false, nodeargs: '--max-old-space-size=512' } }, plugins: { providers: [{ name: 'acme', path: './bin' }] } },
      '/root',
      'dev',
    );
    expect(program).toMatchObject({ rootDir: '/root', project: 'p', stack: 'dev', main: 'src/', runtimeOptions: { typescript: false, nodeargs: '--max-old-space-size=512' } });
    expect(projectPlugins).toEqual([{ name: 'acme', path: './bin', kind: 'resource' }]);
    expect(program.runtime).toBeUndefined();
  });

  it('hands every other runtime, with its options, to a language plugin', () => {
    const { program, projectPlugins } = programFromProject(
      { name: 'p', runtime: { name: 'python', options: { toolchain: 'uv' } }, plugins: { languages: [{ name: 'python', path: './lang', version: '3.1.0' }] } },
      '/root',
      'dev',
    );
    expect(program.runtime).toEqual({ name: 'python', options: { toolchain: 'uv' } });
    expect(program.runtimeOptions).toBeUndefined();
    expect(projectPlugins).toEqual([{ name: 'python', path: './lang', kind: 'language', version: '3.1.0' }]);
    expect(programFromProject({ name: 'p', runtime: 'yaml' }, '/root', 'dev').program.runtime).toEqual({ name: 'yaml', options: {} });
  });
});

const upCommand = (loadResolver: () => Promise<ResolveEngineStack>) => declareEngineCommand(new Command('up'), 'up', loadResolver);

describe('engine commands', () => {
  afterEach(() => {
    process.exitCode = undefined;
    vi.restoreAllMocks();
  });

  it('runs `up --yes` through the injected stack and sets a failing exit code when a step fails', async () => {
    let state: UntypedDeployment | undefined;
    const backend: OperationBackend = {
      crypter: testCrypter(),
      begin: async (_kind, dryRun) => ({
        base: state,
        persister: dryRun ? undefined : { save: async (c) => void (state = JSON.parse(c.text) as UntypedDeployment) },
        complete: async () => {},
      }),
    };
    const rootDir = join(FIXTURES, 'programs/scenario');
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const resolver = (step: number) => async () => async () => ({
      program: { rootDir, project: 'scenario', stack: 'cmd' },
      config: { 'scenario:step': { value: String(step), secret: false } },
      projectPlugins: [{ name: 'testprov', path: join(FIXTURES, 'providers/testprov') }],
      backend,
    });
    await upCommand(resolver(2)).parseAsync(['--yes', '--skip-preview'], { from: 'user' });
    expect(process.exitCode).toBe(0);
    expect((state?.deployment as { resources?: unknown[] }).resources?.length).toBeGreaterThan(5);

    await upCommand(resolver(5)).parseAsync(['--yes', '--skip-preview'], { from: 'user' });
    expect(process.exitCode).toBe(1);
    expect(out.mock.calls.map((c) => String(c[0])).join('')).toContain('injected update failure');
  }, 60_000);
});
