import type { Environment } from 'aws-cdk-lib';
import { validateLambdaArn } from '../../shared/core/hooks/hook-service.js';
import type { CustomDomain } from './constructs/http-api.js';

/** Per-deployment choices, from `-c key=value` (or `cdk.json` context), with environment-variable fallbacks. */
export interface DeploymentSettings {
  readonly stackName: string;
  /** Account and region; left unresolved (an environment-agnostic template) when neither context nor CLI gives them. */
  readonly env: Environment;
  readonly customDomain?: CustomDomain;
  readonly alarmTopicArn?: string;
  /** Lambda functions hooks may invoke; empty: no Lambda hooks, and no invoke permission at all. */
  readonly hookFunctionArns: readonly string[];
  /** The team's VPC for runner builds (context `runnerVpcId` + `runnerSubnetIds`, private subnets with egress). */
  readonly runnerNetwork?: RunnerNetwork;
}

/** A VPC and the subnets runner builds run in. */
export interface RunnerNetwork {
  readonly vpcId: string;
  readonly subnetIds: readonly string[];
}

/**
 * Reads the deployment settings. No lookups: nothing here needs credentials or the network, so `cdk synth` works
 * offline. Context keys: `stackName`, `account`, `region`, `domainName` + `certificateArn`, `alarmTopicArn`,
 * `hookFunctionArns` (comma-separated on the command line, or a list in `cdk.json`).
 */
export function readDeploymentSettings(
  context: (key: string) => unknown,
  env: NodeJS.ProcessEnv,
): DeploymentSettings {
  const text = (key: string): string | undefined => {
    const value = context(key);
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw new Error(`context ${key} must be a string`);
    return value;
  };
  const stackName = text('stackName') ?? 'Stackyard';
  if (!/^[A-Za-z][A-Za-z0-9-]{0,127}$/.test(stackName)) throw new Error(`context stackName is not a stack name: ${stackName}`);

  const domainName = text('domainName');
  const certificateArn = text('certificateArn');
  if (Boolean(domainName) !== Boolean(certificateArn)) {
    throw new Error('a custom domain needs both -c domainName=<host> and -c certificateArn=<ACM certificate ARN>');
  }
  if (certificateArn && !/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[\w-]+$/.test(certificateArn)) {
    throw new Error(`context certificateArn is not an ACM certificate ARN: ${certificateArn}`);
  }

  return {
    stackName,
    env: {
      account: text('account') ?? env.CDK_DEFAULT_ACCOUNT,
      // Without credentials the CDK CLI still sets CDK_DEFAULT_REGION, to its own fallback (us-east-1): that is no
      // choice of the user's, so it pins nothing unless credentials named the account or AWS_REGION is set.
      region:
        text('region') ??
        env.AWS_REGION ??
        env.AWS_DEFAULT_REGION ??
        (env.CDK_DEFAULT_ACCOUNT ? env.CDK_DEFAULT_REGION : undefined),
    },
    customDomain: domainName && certificateArn ? { domainName, certificateArn } : undefined,
    alarmTopicArn: text('alarmTopicArn'),
    hookFunctionArns: hookFunctionArns(context('hookFunctionArns')),
    runnerNetwork: runnerNetwork(text('runnerVpcId'), text('runnerSubnetIds')),
  };
}

function runnerNetwork(vpcId: string | undefined, subnets: string | undefined): RunnerNetwork | undefined {
  if (!vpcId && !subnets) return undefined;
  const subnetIds = (subnets ?? '').split(',').map((id) => id.trim()).filter(Boolean);
  if (!vpcId || !/^vpc-[0-9a-f]{8,17}$/.test(vpcId) || subnetIds.length === 0 || !subnetIds.every((id) => /^subnet-[0-9a-f]{8,17}$/.test(id))) {
    throw new Error('runner builds in a VPC need -c runnerVpcId=vpc-… and -c runnerSubnetIds=subnet-…,subnet-… (private subnets with a route out)');
  }
  return { vpcId, subnetIds };
}

function hookFunctionArns(value: unknown): string[] {
  if (value === undefined || value === null || value === '') return [];
  const listed = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : undefined;
  if (!listed || listed.some((arn) => typeof arn !== 'string')) {
    throw new Error('context hookFunctionArns must be a comma-separated string or a list of Lambda function ARNs');
  }
  const arns = (listed as string[]).map((arn) => arn.trim()).filter((arn) => arn.length > 0);
  for (const arn of arns) {
    try {
      validateLambdaArn(arn, undefined);
    } catch (error) {
      throw new Error(`context hookFunctionArns: ${(error as Error).message}`);
    }
  }
  return [...new Set(arns)];
}
