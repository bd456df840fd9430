import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from '../api/serve-process.js';
import { CliSandbox, removeSandboxes, type CliResult } from './cli-harness.js';

/**
 * The two backends word the same mistake the same way: each step runs on `login --local` (the core in-process) and on
 * a `serve` (the same core behind HTTP), and both must fail alike with the same stderr. Needs `npm run build`.
 */

let serve: ServeProcess;
const local = new CliSandbox();
let service: CliSandbox;
let localProject: string;
let serviceProject: string;

beforeAll(async () => {
  serve = await startServe({ storage: 'local', adminToken: `sy_${randomBytes(24).toString('hex')}` });
  service = new CliSandbox({ STACKYARD_ACCESS_TOKEN: serve.adminToken });
  localProject = local.project('demo', 'name: demo\nruntime: nodejs\n');
  serviceProject = service.project('demo', 'name: demo\nruntime: nodejs\n');
  expect((await local.run(localProject, ['login', '--local'])).status).toBe(0);
  expect((await service.run(serviceProject, ['login', serve.url])).status).toBe(0);
});
afterAll(async () => {
  await serve?.stop();
  removeSandboxes();
});

/** Each step, run in order on both backends: the setup steps succeed, the mistakes are refused. */
const STEPS: { args: string[]; refused: boolean }[] = [
  { args: ['stack', 'init', 'dev'], refused: false },
  { args: ['stack', 'init', 'other'], refused: false },
  { args: ['stack', 'init', 'dev'], refused: true },
  { args: ['stack', 'init', 'bad name!'], refused: true },
  { args: ['stack', 'select', 'nosuch'], refused: true },
  { args: ['stack', 'rm', 'nosuch', '--yes'], refused: true },
  { args: ['stack', 'export', '--stack', 'nosuch'], refused: true },
  { args: ['stack', 'rename', 'dev', '--stack', 'other'], refused: true },
  { args: ['stack', 'tag', 'set', 'k', 'v', '--stack', 'nosuch'], refused: true },
  { args: ['stack', 'history', '--stack', 'nosuch'], refused: true },
  { args: ['cancel', '--yes', '--stack', 'dev'], refused: true },
];

/** The one legitimate difference: the organization (`organization` locally, the admin's own on the service). */
const sameOrg = (text: string) => text.replaceAll('organization/', '<org>/').replaceAll('admin/', '<org>/');

describe('login --local and a service', () => {
  it.each(STEPS)('$args.0 $args.1 $args.2: the same outcome and the same words', async ({ args, refused }) => {
    const onLocal: CliResult = await local.run(localProject, args);
    const onService: CliResult = await service.run(serviceProject, args);

    expect(onLocal.status !== 0, onLocal.stderr).toBe(refused);
    expect(onService.status).toBe(onLocal.status);
    expect(sameOrg(onService.stderr)).toBe(sameOrg(onLocal.stderr));
    if (refused) expect(onLocal.stderr).toMatch(/^error: /);
  });

  it('shows a taken name as a conflict that says what to do, with no advice to retry', async () => {
    const taken = await service.run(serviceProject, ['stack', 'init', 'dev']);

    expect(sameOrg(taken.stderr)).toBe(
      "error: [409] Stack '<org>/demo/dev' already exists: choose another name, or select it with 'stackyard stack select <org>/demo/dev'.\n",
    );
  });
});
