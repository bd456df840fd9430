import { describe, expect, it } from 'vitest';
import type { ResourceState } from '../state/deployment.js';
import type { PackageSchema } from './package-schema.js';
import { CodegenError, generateTypeScript } from './typescript-program.js';

const aws: PackageSchema = {
  name: 'aws',
  meta: { moduleFormat: '(.*)(?:/[^/]*)' },
  resources: {
    'aws:s3/bucket:Bucket': {
      inputProperties: { bucket: { type: 'string' }, acl: { type: 'string' }, versioning: { $ref: '#/types/aws:s3/Versioning:Versioning' }, count: { type: 'integer' } },
      requiredInputs: ['bucket', 'versioning', 'count'],
    },
  },
  types: { 'aws:s3/Versioning:Versioning': { type: 'object', properties: { enabled: { type: 'boolean' }, mfa: { type: 'boolean' } }, required: ['enabled'] } },
};

const bucket = (extra: Partial<ResourceState>): ResourceState => ({
  urn: 'urn:pulumi:dev::proj::aws:s3/bucket:Bucket::my-bucket',
  custom: true,
  type: 'aws:s3/bucket:Bucket',
  provider: 'urn:pulumi:dev::proj::pulumi:providers:aws::default_6_0_0::id',
  ...extra,
});

describe('generateTypeScript (Pulumi importer + nodejs program generation)', () => {
  it('gives required inputs the state lacks their zero value, leaves out what the schema does not list, and names the module', () => {
    // Act
    const code = generateTypeScript([bucket({ inputs: { acl: 'private', extra: 'dropped', bucket: null }, protect: true })], new Map(), new Map([['aws', aws]]));

    // Assess
    expect(code).toBe(
      'import * as pulumi from "@pulumi/pulumi";\nimport * as aws from "@pulumi/aws";\n\n' +
        'const my_bucket = new aws.s3.Bucket("my-bucket", {\n    acl: "private",\n    bucket: "",\n    count: 0,\n    versioning: {\n        enabled: false,\n    },\n}, {\n    protect: true,\n});\n',
    );
  });

  it('uses the name table for the variable, the parent and an explicit provider', () => {
    // Prepare
    const names = new Map([
      ['urn:pulumi:dev::proj::aws:s3/bucket:Bucket::my-bucket', 'myBucketBucket'],
      ['urn:pulumi:dev::proj::my:index:Group::grp', 'grp'],
      ['urn:pulumi:dev::proj::pulumi:providers:aws::east', 'east'],
    ]);
    const state = bucket({ inputs: { bucket: 'b', versioning: { enabled: true }, count: 2 }, parent: 'urn:pulumi:dev::proj::my:index:Group::grp', provider: 'urn:pulumi:dev::proj::pulumi:providers:aws::east::id' });

    // Act
    const code = generateTypeScript([state], names, new Map([['aws', aws]]));

    // Assess
    expect(code).toContain('const myBucketBucket = new aws.s3.Bucket("my-bucket", {\n    bucket: "b",\n    count: 2,\n    versioning: {\n        enabled: true,\n    },\n}, {\n    parent: grp,\n    provider: east,\n});\n');
  });

  it('fails on a type the schema does not know, as Pulumi does', () => {
    // Act
    const run = () => generateTypeScript([bucket({ type: 'aws:s3/other:Other' })], new Map(), new Map([['aws', aws]]));

    // Assess
    expect(run).toThrow(CodegenError);
    expect(run).toThrow("unknown resource type 'aws:s3/other:Other'");
  });
});
