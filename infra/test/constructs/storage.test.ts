import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { DataKey } from '../../lib/constructs/data-key.js';
import { StateBucket } from '../../lib/constructs/state-bucket.js';
import { StateTable } from '../../lib/constructs/state-table.js';
import { FIXTURE_WIRING, bareStack, nagReport } from '../support.js';

function keyInBareStack(): { stack: Stack; key: DataKey } {
  const stack = bareStack();
  return { stack, key: new DataKey(stack, 'DataKey', { aliasName: 'team-yard' }) };
}

describe('DataKey', () => {
  it('rotates yearly, is retained on delete and carries the alias', () => {
    const { stack } = keyInBareStack();

    const template = Template.fromStack(stack);

    template.hasResource('AWS::KMS::Key', {
      Properties: { EnableKeyRotation: true, RotationPeriodInDays: 365 },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    template.hasResourceProperties('AWS::KMS::Alias', {
      AliasName: 'alias/team-yard',
      TargetKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DataKey'), 'Arn'] },
    });
  });
});

describe('StateBucket', () => {
  function bucketTemplate(props: { retention?: Duration } = {}): { stack: Stack; template: Template } {
    const { stack, key } = keyInBareStack();
    new StateBucket(stack, 'StateBucket', { encryptionKey: key.key, noncurrentVersionRetention: props.retention });
    return { stack, template: Template.fromStack(stack) };
  }

  it('encrypts with the data key (SSE-KMS) and a bucket key', () => {
    const { template } = bucketTemplate();

    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: 'aws:kms',
              KMSMasterKeyID: { 'Fn::GetAtt': [Match.stringLikeRegexp('^DataKey'), 'Arn'] },
            },
          },
        ],
      },
    });
  });

  it('keeps versions, expires noncurrent ones after the configured age and blocks all public access', () => {
    const { template } = bucketTemplate({ retention: Duration.days(30) });

    template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({
            Status: 'Enabled',
            NoncurrentVersionExpiration: { NoncurrentDays: 30, NewerNoncurrentVersions: 10 },
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          }),
          // Deployment runs' program archives: their retention (docs/deployments.md).
          Match.objectLike({ Status: 'Enabled', Prefix: 'v1/deploysources/', ExpirationInDays: 30 }),
        ]),
      },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    template.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain' });
  });

  it('denies every request that does not use TLS', () => {
    const { template } = bucketTemplate();

    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('passes cdk-nag with only its written suppression', () => {
    const { stack } = bucketTemplate();

    const report = nagReport(stack);

    expect(report.findings).toEqual([]);
    expect(report.suppressed.map((s) => s.ruleId)).toEqual(['AwsSolutions-S1']);
  });
});

describe('StateTable', () => {
  function tableTemplate(): { stack: Stack; template: Template } {
    const stack = bareStack();
    new StateTable(stack, 'StateTable', {
      keyDesign: FIXTURE_WIRING.keyDesign,
      timeToLiveAttribute: 'ttl',
    });
    return { stack, template: Template.fromStack(stack) };
  }

  it('is on-demand with the TTL attribute, PITR and deletion protection', () => {
    const { template } = tableTemplate();

    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      Replicas: [
        Match.objectLike({
          Region: 'eu-west-1',
          DeletionProtectionEnabled: true,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      ],
    });
    template.hasResource('AWS::DynamoDB::GlobalTable', { DeletionPolicy: 'Retain' });
  });

  it('mirrors the key design: keys, attribute types and indexes', () => {
    const { template } = tableTemplate();

    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'gsi1pk', AttributeType: 'S' },
      ]),
      GlobalSecondaryIndexes: [
        {
          IndexName: 'gsi1',
          KeySchema: [
            { AttributeName: 'gsi1pk', KeyType: 'HASH' },
            { AttributeName: 'sk', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it('refuses a key design whose key attribute has no type', () => {
    const stack = bareStack();

    const build = () =>
      new StateTable(stack, 'StateTable', {
        keyDesign: { KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }], AttributeDefinitions: [] },
        timeToLiveAttribute: 'ttl',
      });

    expect(build).toThrow(/attribute pk has no definition/);
  });

  it('passes cdk-nag without suppressions', () => {
    const { stack } = tableTemplate();

    const report = nagReport(stack);

    expect(report).toEqual({ findings: [], suppressed: [] });
  });
});
