import { App, Aspects } from 'aws-cdk-lib';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readDeploymentSettings } from '../lib/settings.js';
import { StackyardStack } from '../lib/stacks/stackyard-stack.js';
import { apiWiring } from '../lib/wiring.js';

/*
 * The Stackyard deployment, run by `npx cdk synth|diff|deploy` (see docs/deploy.md). Optional context:
 *   -c stackName=Stackyard-prod                      the CloudFormation stack (and key alias) name
 *   -c domainName=pulumi.example.com -c certificateArn=arn:aws:acm:…   a custom domain, certificate in the same region
 *   -c alarmTopicArn=arn:aws:sns:…                   where the alarms notify
 *   -c hookFunctionArns=arn:aws:lambda:…,arn:…       Lambda functions hooks may invoke (none by default)
 *   -c runnerVpcId=vpc-… -c runnerSubnetIds=subnet-…,subnet-…   runner builds in the team's VPC (private subnets)
 *   -c account=… -c region=…                         the target, else the CLI's credentials and region
 * Nothing here looks anything up, so synth needs neither credentials nor the network.
 */
const app = new App();
const settings = readDeploymentSettings((key) => app.node.tryGetContext(key), process.env);

// One stack holds the whole service: the KMS key, the checkpoint bucket, the table, the four API functions and the
// hook dispatcher (the handlers in functions/handlers/, bundled by the local esbuild), the HTTP API and the alarms.
const stackyard = new StackyardStack(app, settings.stackName, {
  stackName: settings.stackName,
  env: settings.env,
  description: 'Stackyard: a Pulumi service backend (HTTP API, Lambda, DynamoDB, S3, KMS)',
  wiring: apiWiring(),
  customDomain: settings.customDomain,
  hookFunctionArns: settings.hookFunctionArns,
  runnerNetwork: settings.runnerNetwork,
});

// The operator's topic hears every alarm and every recovery.
if (settings.alarmTopicArn) {
  stackyard.addAlarmActions(new SnsAction(Topic.fromTopicArn(stackyard, 'AlarmTopic', settings.alarmTopicArn)));
}

// A finding of the AwsSolutions pack without a written suppression fails synth, and with it every deploy.
Aspects.of(app).add(new AwsSolutionsChecks({ reports: false }));
