import { describe, expect, it } from 'vitest';
import { readDeploymentSettings } from '../lib/settings.js';

const from = (context: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  readDeploymentSettings((key) => context[key], env);

describe('readDeploymentSettings', () => {
  it('defaults to an environment-agnostic stack named Stackyard without a domain', () => {
    const settings = from({});

    expect(settings).toEqual({
      stackName: 'Stackyard',
      env: { account: undefined, region: undefined },
      customDomain: undefined,
      alarmTopicArn: undefined,
      hookFunctionArns: [],
    });
  });

  it('prefers context over the CDK CLI environment for account and region', () => {
    const env = { CDK_DEFAULT_ACCOUNT: '111111111111', CDK_DEFAULT_REGION: 'us-east-1' };

    expect(from({}, env).env).toEqual({ account: '111111111111', region: 'us-east-1' });
    expect(from({ account: '222222222222', region: 'eu-west-1' }, env).env).toEqual({
      account: '222222222222',
      region: 'eu-west-1',
    });
  });

  it('stays environment-agnostic without credentials, whatever region the CDK CLI falls back to', () => {
    expect(from({}, { CDK_DEFAULT_REGION: 'us-east-1' }).env).toEqual({ account: undefined, region: undefined });
    expect(from({}, { CDK_DEFAULT_REGION: 'us-east-1', AWS_REGION: 'eu-west-1' }).env).toEqual({ account: undefined, region: 'eu-west-1' });
  });

  it('takes a custom domain only as a domain name plus an ACM certificate ARN', () => {
    const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f0f0f0f-1111-2222-3333-444444444444';

    expect(from({ domainName: 'pulumi.example.com', certificateArn }).customDomain).toEqual({
      domainName: 'pulumi.example.com',
      certificateArn,
    });
    expect(() => from({ domainName: 'pulumi.example.com' })).toThrow(/needs both/);
    expect(() => from({ certificateArn })).toThrow(/needs both/);
    expect(() => from({ domainName: 'pulumi.example.com', certificateArn: 'arn:aws:iam::1:role/x' })).toThrow(
      /not an ACM certificate ARN/,
    );
  });

  it('rejects a stack name CloudFormation would reject', () => {
    expect(() => from({ stackName: 'my stack' })).toThrow(/not a stack name/);
    expect(from({ stackName: 'Stackyard-prod' }).stackName).toBe('Stackyard-prod');
  });

  it('takes the hook functions as a comma-separated string or a list of Lambda function ARNs', () => {
    const ciHook = 'arn:aws:lambda:eu-west-1:123456789012:function:ci-hook';
    const gate = 'arn:aws:lambda:eu-west-1:123456789012:function:change-window:live';

    expect(from({ hookFunctionArns: `${ciHook}, ${gate},` }).hookFunctionArns).toEqual([ciHook, gate]);
    expect(from({ hookFunctionArns: [ciHook, ciHook] }).hookFunctionArns).toEqual([ciHook]);
    expect(from({ hookFunctionArns: '' }).hookFunctionArns).toEqual([]);
    expect(() => from({ hookFunctionArns: 'arn:aws:lambda:eu-west-1:123456789012:function:*' })).toThrow(
      /context hookFunctionArns: Invalid Lambda function ARN/,
    );
    expect(() => from({ hookFunctionArns: 'arn:aws:iam::123456789012:role/ci' })).toThrow(/Invalid Lambda function ARN/);
    expect(() => from({ hookFunctionArns: 42 })).toThrow(/comma-separated string or a list/);
  });
});
