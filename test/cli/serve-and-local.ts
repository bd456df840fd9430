/**
 * The two backends a CLI test runs against: a `stackyard serve` on local storage, started before the file's tests
 * and stopped after them, and `login --local`. Call at the top level of a test file.
 */
import { afterAll, beforeAll } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { removeSandboxes, type CliSandbox } from './cli-harness.js';

export interface CliBackend {
  name: 'serve' | '--local';
  login(sandbox: CliSandbox, project: string): Promise<void>;
}

export function serveAndLocalBackends(): CliBackend[] {
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    serve = await startServe({ storage: 'local' });
  });

  afterAll(async () => {
    await serve?.stop();
    removeSandboxes();
  });

  return [
    {
      name: 'serve',
      async login(sandbox, project) {
        if (!serve) throw new Error('serve has not started');
        await sandbox.run(project, ['login', serve.url], { env: { STACKYARD_ACCESS_TOKEN: serve.adminToken } });
      },
    },
    {
      name: '--local',
      async login(sandbox, project) {
        await sandbox.run(project, ['login', '--local']);
      },
    },
  ];
}
