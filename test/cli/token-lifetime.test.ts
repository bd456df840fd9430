/**
 * `token create --expires-in <duration>` through the bundled CLI on `login --local` (needs `npm run build`): the
 * lifetime is a duration (`15m`, `12h`, `30d`), recorded as the token's expiry.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

afterAll(() => removeSandboxes());

describe('token create --expires-in', () => {
  const sandbox = new CliSandbox();
  const project = sandbox.project('tokens', 'name: tokens\nruntime: nodejs\n');
  const cli = (...args: string[]) => sandbox.run(project, args);

  it('takes 15m, 12h and 30d, and refuses what is not a duration', async () => {
    await cli('login', '--local');
    for (const [lifetime, ms] of [['15m', 900_000], ['12h', 43_200_000], ['30d', 2_592_000_000]] as const) {
      const created = await cli('token', 'create', '--description', `lasts ${lifetime}`, '--expires-in', lifetime);
      expect(created.status, created.stderr).toBe(0);
      const listed = JSON.parse((await cli('token', 'ls', '--json')).stdout) as { description: string; createdAt: string; expiresAt?: string }[];
      const token = listed.find((t) => t.description === `lasts ${lifetime}`)!;
      expect(Date.parse(token.expiresAt!) - Date.parse(token.createdAt)).toBe(ms);
    }
    const refused = await cli('token', 'create', '--expires-in', 'soon');

    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('expected a duration such as 15m, 12h or 30d, got "soon"');
  });
});
