import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { readTrigger } from './events.js';
import { pathsMatch } from './path-filter.js';
import { providerOf, readEnvelope, signatureMatches } from './signatures.js';

const SECRET = 'a-webhook-secret-of-length';
const body = (value: unknown) => Buffer.from(JSON.stringify(value));
const hmac = (text: Buffer, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(text).digest('hex')}`;
const SHA = 'f'.repeat(40);

describe('push webhook signatures', () => {
  it("accepts GitHub's X-Hub-Signature-256 of the exact body under the secret, and nothing else", () => {
    const payload = body({ ref: 'refs/heads/main' });
    const headers = { 'x-github-event': 'push', 'x-github-delivery': 'd-1', 'x-hub-signature-256': hmac(payload) };

    expect(providerOf(headers)).toBe('github');
    expect(signatureMatches('github', headers, payload, SECRET)).toBe(true);
    expect(signatureMatches('github', headers, Buffer.concat([payload, Buffer.from(' ')]), SECRET)).toBe(false);
    expect(signatureMatches('github', { ...headers, 'x-hub-signature-256': hmac(payload, 'another-secret-entirely') }, payload, SECRET)).toBe(false);
    expect(signatureMatches('github', { ...headers, 'x-hub-signature-256': undefined }, payload, SECRET)).toBe(false);
  });

  it("accepts GitLab's X-Gitlab-Token equal to the secret and the generic X-Stackyard-Signature-256", () => {
    const payload = body({});

    expect(signatureMatches('gitlab', { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': SECRET }, payload, SECRET)).toBe(true);
    expect(signatureMatches('gitlab', { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': `${SECRET}x` }, payload, SECRET)).toBe(false);
    expect(signatureMatches('git', { 'x-stackyard-signature-256': hmac(payload) }, payload, SECRET)).toBe(true);
    expect(providerOf({ 'content-type': 'application/json' })).toBeUndefined();
  });

  it('reads the delivery id each sender sets, and refuses a delivery without one', () => {
    expect(readEnvelope('gitlab', { 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'u-1' })).toEqual({ provider: 'gitlab', deliveryId: 'u-1', event: 'Push Hook' });
    expect(readEnvelope('git', { 'x-stackyard-delivery': 'push-1' })).toEqual({ provider: 'git', deliveryId: 'push-1', event: 'push' });
    expect(() => readEnvelope('github', { 'x-github-event': 'push' })).toThrow(InvalidInputError);
    expect(() => readEnvelope('git', { 'x-stackyard-delivery': 'bad id with spaces' })).toThrow(InvalidInputError);
  });
});

describe('push webhook payloads', () => {
  const github = (event: string) => ({ provider: 'github' as const, deliveryId: 'd', event });
  const gitlab = (event: string) => ({ provider: 'gitlab' as const, deliveryId: 'd', event });

  it('reads a GitHub push: its branch, commit and every file its commits touched', () => {
    const trigger = readTrigger(github('push'), body({ ref: 'refs/heads/main', after: SHA, commits: [{ added: ['a.ts'], modified: ['infra/b.ts'], removed: [] }, { removed: ['c.md'] }] }));

    expect(trigger).toEqual({ kind: 'push', branch: 'main', commit: SHA, files: ['a.ts', 'infra/b.ts', 'c.md'] });
  });

  it('ignores pings, tags, deleted branches, closed pull requests and GitLab title edits', () => {
    expect(readTrigger(github('ping'), body({ zen: 'x' })).kind).toBe('ignored');
    expect(readTrigger(github('push'), body({ ref: 'refs/tags/v1', after: SHA })).kind).toBe('ignored');
    expect(readTrigger(github('push'), body({ ref: 'refs/heads/main', after: '0'.repeat(40) })).kind).toBe('ignored');
    expect(readTrigger(github('pull_request'), body({ action: 'closed', pull_request: { base: { ref: 'main' }, head: { sha: SHA } } })).kind).toBe('ignored');
    expect(readTrigger(gitlab('Merge Request Hook'), body({ object_attributes: { action: 'update', target_branch: 'main', last_commit: { id: SHA } } })).kind).toBe('ignored');
  });

  it('reads pull requests of both senders as their target branch and head commit', () => {
    expect(readTrigger(github('pull_request'), body({ action: 'synchronize', number: 7, pull_request: { base: { ref: 'main' }, head: { sha: SHA } } }))).toEqual({
      kind: 'pull-request',
      targetBranch: 'main',
      commit: SHA,
      number: 7,
    });
    expect(readTrigger(gitlab('Merge Request Hook'), body({ object_attributes: { action: 'update', oldrev: SHA, iid: 3, target_branch: 'main', last_commit: { id: SHA } } }))).toMatchObject({
      kind: 'pull-request',
      number: 3,
    });
  });

  it('refuses a payload that is not JSON or names no commit', () => {
    expect(() => readTrigger(github('push'), Buffer.from('ref=main'))).toThrow(InvalidInputError);
    expect(() => readTrigger({ provider: 'git', deliveryId: 'd', event: 'push' }, body({ ref: 'refs/heads/main', after: 'HEAD' }))).toThrow(InvalidInputError);
  });
});

describe('the push path filter (gitHub.paths)', () => {
  it('passes a push that changed a file under a folder or matching a glob, and not one whose files are all excluded', () => {
    expect(pathsMatch([], ['README.md'])).toBe(true);
    expect(pathsMatch(['infra'], ['infra/index.ts'])).toBe(true);
    expect(pathsMatch(['infra'], ['infrastructure.md'])).toBe(false);
    expect(pathsMatch(['infra/**/*.ts'], ['infra/a/b/c.ts'])).toBe(true);
    expect(pathsMatch(['infra/**/*.ts'], ['infra/c.ts'])).toBe(true);
    expect(pathsMatch(['*.ts'], ['src/a.ts'])).toBe(false);
    expect(pathsMatch(['infra', '!infra/**/*.md'], ['infra/notes.md'])).toBe(false);
    expect(pathsMatch(['infra', '!infra/**/*.md'], ['infra/notes.md', 'infra/a.ts'])).toBe(true);
  });
});
