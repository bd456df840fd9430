import { afterAll, beforeAll, describe } from 'vitest';
import { PulumiWire } from './pulumi-wire.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { defineWireScenarios } from './wire-scenarios.js';
import { defineRemoteConfigScenarios } from './wire-remote-config.js';

let serve: ServeProcess;
let wire: PulumiWire;

beforeAll(async () => {
  serve = await startServe({ storage: 'local' });
  wire = new PulumiWire(serve.url);
});

afterAll(async () => {
  wire?.close();
  await serve?.stop();
});

describe('Pulumi CLI call sequences against `stackyard serve` on local storage', () => {
  defineWireScenarios(() => ({ wire, adminToken: serve.adminToken, url: serve.url }));
  defineRemoteConfigScenarios(() => ({ wire, adminToken: serve.adminToken, url: serve.url }));
});
