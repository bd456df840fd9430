import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gitCredentials } from './git-credentials.js';

describe('the clone credential files', () => {
  const parent = mkdtempSync(join(tmpdir(), 'stackyard-cred-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('answers git\'s two prompts from 0600 files named nowhere in the environment, and leaves nothing once disposed', () => {
    const credentials = gitCredentials(parent, { kind: 'basic', userName: 'git', password: 's3cret-value' });
    const askpass = credentials.env.GIT_ASKPASS!;
    const [dir] = readdirSync(parent);

    const user = execFileSync(askpass, ["Username for 'http://127.0.0.1': "], { encoding: 'utf8' });
    const password = execFileSync(askpass, ["Password for 'http://git@127.0.0.1': "], { encoding: 'utf8' });
    const modes = readdirSync(join(parent, dir!)).map((file) => [file, statSync(join(parent, dir!, file)).mode & 0o777]);
    credentials.dispose();

    expect([user, password]).toEqual(['git', 's3cret-value']);
    expect(Object.fromEntries(modes)).toEqual({ 'askpass.sh': 0o700, user: 0o600, password: 0o600 });
    expect(JSON.stringify(credentials)).not.toContain('s3cret-value');
    expect(credentials.configArgs).toEqual(['-c', 'credential.helper=']);
    expect(existsSync(join(parent, dir!))).toBe(false);
  });

  it('gives ssh the key file and the passphrase through SSH_ASKPASS, and allows ssh only then', () => {
    const plain = gitCredentials(parent, undefined);
    const ssh = gitCredentials(parent, { kind: 'ssh', privateKey: 'KEY-TEXT', passphrase: 'phrase' });

    expect(plain.env.GIT_ALLOW_PROTOCOL).toBe('http:https');
    expect(ssh.env.GIT_ALLOW_PROTOCOL).toBe('http:https:ssh');
    expect(ssh.env.GIT_SSH_COMMAND).toMatch(/^ssh -F \/dev\/null -o IdentitiesOnly=yes .* -i '.*\/key'$/);
    expect(execFileSync(ssh.env.SSH_ASKPASS!, ['Enter passphrase'], { encoding: 'utf8' })).toBe('phrase');
    expect(JSON.stringify(ssh.env)).not.toContain('KEY-TEXT');
    ssh.dispose();
    expect(readdirSync(parent)).toEqual([]);
  });
});
