import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { renderHookBody, validateHookFormat } from './formats.js';

const drift = {
  event: 'drift_detected',
  user: { name: 'alice', githubLogin: 'alice' },
  organization: { name: 'acme', githubLogin: 'acme' },
  projectName: 'web',
  stackName: 'prod',
  driftUrl: 'https://stackyard.example/acme/web/prod/drift',
  resourceCount: 3,
  resources: [
    { urn: 'urn:pulumi:prod::web::aws:s3/bucket:Bucket::logs', type: 'aws:s3/bucket:Bucket', change: 'update', properties: ['acl', 'tags'] },
    { urn: 'urn:pulumi:prod::web::aws:sqs/queue:Queue::jobs', type: 'aws:sqs/queue:Queue', change: 'delete', properties: [] },
  ],
};

describe('hook formats', () => {
  it('sends the payload itself as raw JSON', () => {
    expect(JSON.parse(renderHookBody(undefined, drift))).toEqual(drift);
    expect(renderHookBody('raw', drift)).toBe(JSON.stringify(drift));
  });

  it('writes a Slack message naming the stack, each drifted resource with its properties, and the link', () => {
    expect(JSON.parse(renderHookBody('slack', drift))).toEqual({
      text:
        '*<https://stackyard.example/acme/web/prod/drift|acme/web/prod: drift detected (alice)>*\n' +
        '• changed: logs (aws:s3/bucket:Bucket) — acl, tags\n' +
        '• deleted: jobs (aws:sqs/queue:Queue)\n' +
        '• …and 1 more',
    });
  });

  it('writes a Microsoft Teams MessageCard with the same lines and an Open action', () => {
    const card = JSON.parse(renderHookBody('ms_teams', drift));

    expect(card).toMatchObject({ '@type': 'MessageCard', summary: 'acme/web/prod: drift detected (alice)', title: 'acme/web/prod: drift detected (alice)' });
    expect(card.text).toBe('changed: logs (aws:s3/bucket:Bucket) — acl, tags<br>deleted: jobs (aws:sqs/queue:Queue)<br>…and 1 more');
    expect(card.potentialAction[0].targets[0].uri).toBe(drift.driftUrl);
  });

  it("summarizes an update's changes, leaving out unchanged resources", () => {
    const update = { ...drift, event: 'update_succeeded', resources: undefined, driftUrl: undefined, updateUrl: 'https://s/u/7', resourceChanges: { create: 2, same: 9 } };

    expect(JSON.parse(renderHookBody('slack', update)).text).toBe('*<https://s/u/7|acme/web/prod: update succeeded (alice)>*\n• 2 create');
  });

  it("takes Pulumi Cloud's format names only", () => {
    expect(validateHookFormat(undefined)).toBe('raw');
    expect(validateHookFormat('ms_teams')).toBe('ms_teams');
    expect(() => validateHookFormat('discord')).toThrow(InvalidInputError);
  });
});
