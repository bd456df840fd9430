import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { describe, expect, it } from 'vitest';
import { ApiAlarms } from '../../lib/constructs/api-alarms.js';
import { ApiFunctions } from '../../lib/constructs/api-functions.js';
import { DataKey } from '../../lib/constructs/data-key.js';
import { StackyardHttpApi, parseRouteKey } from '../../lib/constructs/http-api.js';
import { StateBucket } from '../../lib/constructs/state-bucket.js';
import { StateTable } from '../../lib/constructs/state-table.js';
import { FIXTURE_WIRING, bareStack, nagReport } from '../support.js';

const arnOf = (prefix: string) => ({ 'Fn::GetAtt': [Match.stringLikeRegexp(`^${prefix}`), 'Arn'] });

interface Built {
  stack: Stack;
  functions: ApiFunctions;
}

function functionsInBareStack(): Built {
  const stack = bareStack();
  const key = new DataKey(stack, 'DataKey');
  const bucket = new StateBucket(stack, 'StateBucket', { encryptionKey: key.key });
  const table = new StateTable(stack, 'StateTable', { keyDesign: FIXTURE_WIRING.keyDesign, timeToLiveAttribute: 'ttl' });
  const functions = new ApiFunctions(stack, 'Functions', {
    handlers: FIXTURE_WIRING.handlers,
    table: table.table,
    indexNames: ['gsi1'],
    bucket: bucket.bucket,
    key: key.key,
    encryptionContextKeys: ['stackyard:stack'],
  });
  return { stack, functions };
}

function policyStatements(template: Template): Array<Record<string, unknown>> {
  const policies = Object.values(template.findResources('AWS::IAM::Policy'));
  return policies.flatMap((p) => p.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>);
}

function actionsOf(statement: Record<string, unknown>): string[] {
  const action = statement.Action as string | string[];
  return Array.isArray(action) ? action : [action];
}

describe('ApiFunctions', () => {
  it('runs every handler on nodejs22.x/arm64 with the storage environment and its own log group', () => {
    const { stack } = functionsInBareStack();

    const template = Template.fromStack(stack);

    template.resourceCountIs('AWS::Lambda::Function', 2);
    template.allResourcesProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Timeout: 28,
      Role: arnOf('FunctionsRole'),
      LoggingConfig: { LogGroup: { Ref: Match.stringLikeRegexp('Logs') } },
      Environment: {
        Variables: Match.objectLike({
          STACKYARD_TABLE: { Ref: Match.stringLikeRegexp('^StateTable') },
          STACKYARD_BUCKET: { Ref: Match.stringLikeRegexp('^StateBucket') },
          STACKYARD_KMS_KEY_ID: arnOf('DataKey'),
          // the source map ships in the asset for offline use, but a cold start does not load it
          NODE_OPTIONS: Match.absent(),
        }),
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', { Description: 'Stackyard API: Identity', MemorySize: 1024 });
    template.hasResourceProperties('AWS::Lambda::Function', { Description: 'Stackyard API: Updates', MemorySize: 1769 });
    template.resourceCountIs('AWS::Logs::LogGroup', 2);
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/stackyard/Bare/functions/Identity' });
  });

  it('gives the role no managed policies and table, bucket and log access scoped to those resources', () => {
    const { stack } = functionsInBareStack();

    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
      },
      ManagedPolicyArns: Match.absent(),
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'TableItems',
            Action: Match.arrayWith(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem']),
            Resource: [arnOf('StateTable'), { 'Fn::Join': ['', [arnOf('StateTable'), '/index/gsi1']] }],
          }),
          Match.objectLike({
            Sid: 'BucketObjects',
            Action: ['s3:GetObject', 's3:PutObject'],
            Resource: { 'Fn::Join': ['', [arnOf('StateBucket'), '/*']] },
          }),
          Match.objectLike({
            Sid: 'PolicyPackObjectsDelete',
            Action: 's3:DeleteObject',
            Resource: { 'Fn::Join': ['', [arnOf('StateBucket'), '/v1/policypacks/*']] },
          }),
          Match.objectLike({
            Sid: 'SourceArchiveObjectsDelete',
            Action: 's3:DeleteObject',
            Resource: { 'Fn::Join': ['', [arnOf('StateBucket'), '/v1/deploysources/*']] },
          }),
          Match.objectLike({ Sid: 'BucketList', Action: 's3:ListBucket', Resource: arnOf('StateBucket') }),
          Match.objectLike({
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Resource: [arnOf('FunctionsIdentityLogs'), arnOf('FunctionsUpdatesLogs')],
          }),
        ]),
      },
    });
    const actions = policyStatements(template).flatMap(actionsOf);
    expect(actions.filter((a) => a.includes('*'))).toEqual([]);
    expect(actions).not.toContain('dynamodb:Scan');
    // state, history and secrets stay write-once: the deletes are of policy pack tarballs and runs' program
    // archives, each under its prefix only
    const deletes = policyStatements(template).filter((statement) => actionsOf(statement).includes('s3:DeleteObject'));
    expect(deletes.map((statement) => statement.Sid)).toEqual(['PolicyPackObjectsDelete', 'SourceArchiveObjectsDelete']);
  });

  it('lets the role use the key directly only with the key service encryption context', () => {
    const { stack } = functionsInBareStack();

    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'DataKeysWithContext',
            Effect: 'Allow',
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
            Resource: arnOf('DataKey'),
            Condition: {
              'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['stackyard:stack'] },
              StringLike: { 'kms:EncryptionContext:stackyard:stack': '*' },
            },
          },
        ]),
      },
    });
  });

  it('lets S3 use the key for this bucket only (kms:ViaService and the aws:s3:arn context)', () => {
    const { stack } = functionsInBareStack();

    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'BucketEncryptionViaS3',
            Effect: 'Allow',
            Action: ['kms:Decrypt', 'kms:GenerateDataKey'],
            Resource: arnOf('DataKey'),
            Condition: {
              StringEquals: { 'kms:ViaService': 's3.eu-west-1.amazonaws.com' },
              StringLike: {
                'kms:EncryptionContext:aws:s3:arn': [arnOf('StateBucket'), { 'Fn::Join': ['', [arnOf('StateBucket'), '/*']] }],
              },
            },
          },
        ]),
      },
    });
  });

  it('has no KMS permission without a condition anywhere in the stack', () => {
    const { stack } = functionsInBareStack();

    const template = Template.fromStack(stack);

    const kmsStatements = policyStatements(template).filter((s) => actionsOf(s).some((a) => a.startsWith('kms:')));
    expect(kmsStatements).toHaveLength(2);
    for (const statement of kmsStatements) expect(statement.Condition).toBeDefined();
  });

  it('refuses an empty encryption context', () => {
    const stack = bareStack();
    const key = new DataKey(stack, 'DataKey');
    const bucket = new StateBucket(stack, 'StateBucket', { encryptionKey: key.key });
    const table = new StateTable(stack, 'StateTable', { keyDesign: FIXTURE_WIRING.keyDesign, timeToLiveAttribute: 'ttl' });

    const build = () =>
      new ApiFunctions(stack, 'Functions', {
        handlers: FIXTURE_WIRING.handlers,
        table: table.table,
        bucket: bucket.bucket,
        key: key.key,
        encryptionContextKeys: [],
      });

    expect(build).toThrow(/encryptionContextKeys/);
  });

  it('passes cdk-nag; each suppression has a reason', () => {
    const { stack } = functionsInBareStack();

    const report = nagReport(stack);

    expect(report.findings).toEqual([]);
    expect(new Set(report.suppressed.map((s) => s.ruleId.replace(/\[.*$/, '')))).toEqual(
      new Set(['AwsSolutions-S1', 'AwsSolutions-L1', 'AwsSolutions-IAM5']),
    );
    for (const s of report.suppressed) expect(s.reason.length).toBeGreaterThan(40);
  });
});

function apiInBareStack(customDomain?: { domainName: string; certificateArn: string }) {
  const built = functionsInBareStack();
  const api = new StackyardHttpApi(built.stack, 'Api', {
    routes: FIXTURE_WIRING.routes,
    functions: built.functions.functions,
    customDomain,
  });
  return { ...built, api };
}

describe('StackyardHttpApi', () => {
  it('routes every route key to the function named in the route table', () => {
    const { stack } = apiInBareStack();

    const template = Template.fromStack(stack);

    template.resourceCountIs('AWS::ApiGatewayV2::Route', FIXTURE_WIRING.routes.length);
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    const targetOf = (integrationId: string) =>
      (integrations[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'] as string[])[0];
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => [
      r.Properties.RouteKey,
      targetOf(r.Properties.Target['Fn::Join'][1][1].Ref),
    ]);
    expect(routes.map(([key, fn]) => [key, fn.replace(/[0-9A-F]{8}$/, '')]).sort()).toEqual(
      FIXTURE_WIRING.routes.map((r) => [r.routeKey, `Functions${r.handler}`]).sort(),
    );
    template.allResourcesProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
  });

  it('grants API Gateway one invoke permission per function, limited to this API', () => {
    const { stack } = apiInBareStack();

    const template = Template.fromStack(stack);

    template.resourceCountIs('AWS::Lambda::Permission', 2);
    template.allResourcesProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'apigateway.amazonaws.com',
      SourceArn: {
        'Fn::Join': ['', ['arn:aws:execute-api:eu-west-1:123456789012:', { Ref: Match.stringLikeRegexp('^ApiF?') }, '/*/*/*']],
      },
    });
  });

  it('throttles the default stage and writes JSON access logs without credentials', () => {
    const { stack } = apiInBareStack();

    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
      AccessLogSettings: { DestinationArn: arnOf('ApiAccessLogs') },
    });
    const stage = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'))[0]!;
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status', routeKey: '$context.routeKey' });
    expect(JSON.stringify(format).toLowerCase()).not.toMatch(/authorization|header|body/);
    template.hasResourceProperties('AWS::Logs::LogGroup', { LogGroupName: '/stackyard/Bare/api-access', RetentionInDays: 30 });
  });

  it('uses the execute-api endpoint as the login URL when there is no custom domain', () => {
    const { stack, api } = apiInBareStack();

    const template = Template.fromStack(stack);

    expect(stack.resolve(api.loginUrl)).toEqual(stack.resolve(api.api.apiEndpoint));
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0);
  });

  it('maps a custom domain with the given certificate and logs in through it', () => {
    const certificateArn = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f0f0f0f-1111-2222-3333-444444444444';
    const { stack, api } = apiInBareStack({ domainName: 'pulumi.example.com', certificateArn });

    const template = Template.fromStack(stack);

    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'pulumi.example.com',
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: certificateArn, EndpointType: 'REGIONAL' })],
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', { Stage: Match.anyValue() });
    expect(api.loginUrl).toBe('https://pulumi.example.com');
  });

  it('refuses a malformed route key or a route to an unknown handler', () => {
    const built = functionsInBareStack();

    expect(() => parseRouteKey('FETCH /api/user')).toThrow(/invalid route key/);
    expect(() => parseRouteKey('GET api/user')).toThrow(/invalid route key/);
    expect(parseRouteKey('HEAD /api/stacks/{orgName}/{projectName}').key).toBe('HEAD /api/stacks/{orgName}/{projectName}');
    expect(parseRouteKey('$default').key).toBe('$default');
    expect(
      () =>
        new StackyardHttpApi(built.stack, 'Api', {
          routes: [{ routeKey: 'GET /api/user', handler: 'Nope' }],
          functions: built.functions.functions,
        }),
    ).toThrow(/no function named Nope/);
  });

  it('passes cdk-nag with the authorization suppression on its routes', () => {
    const { stack } = apiInBareStack();

    const report = nagReport(stack);

    expect(report.findings).toEqual([]);
    const routeSuppressions = report.suppressed.filter((s) => s.path.startsWith('Bare/Api/Route-'));
    expect(routeSuppressions.map((s) => s.ruleId)).toEqual(FIXTURE_WIRING.routes.map(() => 'AwsSolutions-APIG4'));
  });
});

describe('ApiAlarms', () => {
  function alarmsInBareStack(withTopic = false) {
    const { stack, functions, api } = apiInBareStack();
    const topic = withTopic ? new sns.Topic(stack, 'Topic', { enforceSSL: true }) : undefined;
    const alarms = new ApiAlarms(stack, 'Alarms', {
      api: api.api,
      functions: [...functions.functions.values()],
      actions: topic ? [new cloudwatchActions.SnsAction(topic)] : undefined,
    });
    return { stack, alarms };
  }

  it('alarms on API 5xx, Lambda throttles of every handler and p99 latency', () => {
    const { stack, alarms } = alarmsInBareStack();

    const template = Template.fromStack(stack);

    template.resourceCountIs('AWS::CloudWatch::Alarm', 3);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5xx',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 5,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: 'Latency',
      ExtendedStatistic: 'p99',
      Threshold: 5000,
      EvaluationPeriods: 3,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'SUM([t0, t1])', ReturnData: true }),
        Match.objectLike({ Id: 't0', MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'Throttles' }) }) }),
        Match.objectLike({ Id: 't1', MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'Throttles' }) }) }),
      ]),
      Threshold: 1,
    });
    const ids = [alarms.serverErrors, alarms.throttles, alarms.latencyP99].map((a) => stack.resolve(a.alarmArn));
    expect(new Set(ids.map((id) => JSON.stringify(id))).size).toBe(3);
  });

  it('notifies the given actions on alarm and on recovery', () => {
    const { stack } = alarmsInBareStack(true);

    const template = Template.fromStack(stack);

    template.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^Topic') }],
      OKActions: [{ Ref: Match.stringLikeRegexp('^Topic') }],
    });
  });
});
