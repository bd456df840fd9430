import { describe, expect, it } from 'vitest';
import { driftedResources } from './drifted-resources.js';

const URN = 'urn:pulumi:dev::app::aws:s3/bucket:Bucket::logs';
const outputs = (metadata: object) => ({ resOutputsEvent: { metadata } });

describe('driftedResources', () => {
  it("names Stackyard's refresh steps: an update with its diffs, a delete, and never a same", () => {
    const events = [
      { resourcePreEvent: { metadata: { op: 'update', urn: URN, type: 'aws:s3/bucket:Bucket', diffs: ['tags'] } } },
      outputs({ op: 'update', urn: URN, type: 'aws:s3/bucket:Bucket', diffs: ['tags', 'acl'] }),
      outputs({ op: 'delete', urn: `${URN}2`, type: 'aws:s3/bucket:Bucket' }),
      outputs({ op: 'same', urn: `${URN}3`, type: 'aws:s3/bucket:Bucket' }),
    ];

    expect(driftedResources(events)).toEqual([
      { urn: URN, type: 'aws:s3/bucket:Bucket', change: 'update', properties: ['acl', 'tags'] },
      { urn: `${URN}2`, type: 'aws:s3/bucket:Bucket', change: 'delete', properties: [] },
    ]);
  });

  it("reads Pulumi's refresh steps by their old and new outputs: changed, gone, or unchanged", () => {
    const events = [
      outputs({ op: 'refresh', urn: URN, type: 'T', old: { outputs: { a: 1, b: [1] } }, new: { outputs: { a: 1, b: [2], c: true } } }),
      outputs({ op: 'refresh', urn: `${URN}2`, type: 'T', old: { outputs: { a: 1 } }, new: null }),
      outputs({ op: 'refresh', urn: `${URN}3`, type: 'T', old: { outputs: { a: 1 } }, new: { outputs: { a: 1 } } }),
    ];

    expect(driftedResources(events)).toEqual([
      { urn: URN, type: 'T', change: 'update', properties: ['b', 'c'] },
      { urn: `${URN}2`, type: 'T', change: 'delete', properties: [] },
    ]);
  });

  it('leaves out providers, the stack and events that are not finished steps', () => {
    const events = [
      outputs({ op: 'update', urn: 'urn:pulumi:dev::app::pulumi:providers:aws::default', type: 'pulumi:providers:aws', diffs: ['region'] }),
      outputs({ op: 'update', urn: 'urn:pulumi:dev::app::pulumi:pulumi:Stack::app-dev', type: 'pulumi:pulumi:Stack', diffs: ['x'] }),
      { diagnosticEvent: { message: 'hello' } },
      null,
    ];

    expect(driftedResources(events)).toEqual([]);
  });
});
