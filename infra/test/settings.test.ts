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
});
