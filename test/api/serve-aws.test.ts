import { afterAll, beforeAll, describe } from 'vitest';
import { startAwsStandIns, type AwsStandIns } from '../support/aws-stand-ins.js';
import { PulumiWire } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { defineWireScenarios } from './wire-scenarios.js';
import { defineRemoteConfigScenarios } from './wire-remote-config.js';

let standIns: AwsStandIns;
let serve: ServeProcess;
let wire: PulumiWire;

beforeAll(async () => {
  standIns = await startAwsStandIns();
  serve = await startServe({ storage: 'aws', env: standIns.env });
  wire = new PulumiWire(serve.url);
});

afterAll(async () => {
  wire?.close();
  await serve?.stop();
  await standIns?.stop();
});

describe('Pulumi CLI call sequences against `stackyard serve` on AWS storage (DynamoDB Local, s3rver, KMS stand-in)', () => {
  defineWireScenarios(() => ({ wire, adminToken: serve.adminToken, url: serve.url }));
  defineRemoteConfigScenarios(() => ({ wire, adminToken: serve.adminToken, url: serve.url }));
});
