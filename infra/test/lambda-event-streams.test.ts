import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaBuildOptions } from '../../test/support/lambda-bundles.js';

/*
 * The Lambda bundles replace the SDK's event-stream codec with functions/lambda-event-streams.ts (LAMBDA_ALIASES).
 * That holds only while no function sends an operation that streams events, and while the clients still construct
 * and send everything else with it in place.
 */

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** The event-stream unions (`[4, n0, name, { streaming }]`) a client's generated schemas declare. */
function eventStreamUnions(client: string): string[] {
  const schemas = readFileSync(join(root, 'node_modules/@aws-sdk', client, 'dist-es/schemas/schemas_0.js'), 'utf8');
  return [...schemas.matchAll(/export var (\w+)\$ = \[4, n0, \w+,\s*\{ \[_st\]: 1 \}/g)].map((m) => m[1]!);
}

/** Our own source files (no tests): where every command a function sends is named. */
function ourSources(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'))
    .map((path) => join(root, dir, path));
}

describe('the event-stream codec the Lambda bundles leave out', () => {
  it('is needed only by S3 SelectObjectContent and Lambda InvokeWithResponseStream, which no function sends', () => {
    // An SDK upgrade that adds an event-stream operation to a client the functions use fails here, for a look.
    expect(Object.fromEntries(['client-dynamodb', 'client-kms', 'client-lambda', 'client-s3'].map((c) => [c, eventStreamUnions(c)]))).toEqual({
      'client-dynamodb': [],
      'client-kms': [],
      'client-lambda': ['InvokeWithResponseStreamResponseEvent'],
      'client-s3': ['SelectObjectContentEventStream'],
    });
    const senders = [...ourSources('functions'), ...ourSources('shared')].filter((file) =>
      /\b(SelectObjectContent|InvokeWithResponseStream)Command\b/.test(readFileSync(file, 'utf8')),
    );
    expect(senders).toEqual([]);
  });

  describe('bundled with the infra settings', () => {
    let outDir: string;
    let server: Server;
    const invocations: { method?: string; url?: string; body: string }[] = [];

    beforeAll(async () => {
      outDir = mkdtempSync(join(tmpdir(), 'stackyard-event-streams-'));
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          invocations.push({ method: request.method, url: request.url, body: Buffer.concat(chunks).toString('utf8') });
          response.writeHead(200, { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' });
          response.end('{"pong":1}');
        });
      });
      await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    });

    afterAll(async () => {
      await new Promise((closed) => server?.close(closed));
      if (outDir) rmSync(outDir, { recursive: true, force: true });
    });

    it('the Lambda and S3 clients construct and send as before, and an event stream would be refused by name', async () => {
      const file = join(outDir, 'clients.mjs');
      const { metafile } = await build({
        ...lambdaBuildOptions(file),
        stdin: {
          resolveDir: root,
          loader: 'js',
          contents: `
            import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
            import { S3Client } from '@aws-sdk/client-s3';
            const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'example' };
            const lambda = new LambdaClient({ endpoint: process.env.ENDPOINT, region: 'us-east-1', credentials });
            const answer = await lambda.send(new InvokeCommand({ FunctionName: 'gate', Payload: new TextEncoder().encode('{"ping":1}') }));
            const s3 = new S3Client({ region: 'us-east-1', credentials });
            let refused;
            try { s3.config.eventStreamMarshaller.deserialize(); } catch (error) { refused = error.message; }
            console.log(JSON.stringify({ status: answer.StatusCode, payload: new TextDecoder().decode(answer.Payload), refused }));
          `,
        },
      });
      const inputs = Object.keys(metafile.outputs[Object.keys(metafile.outputs).find((path) => path.endsWith('.mjs'))!]!.inputs);
      expect(inputs.filter((path) => path.includes('@smithy/core/dist-es/submodules/event-streams/'))).toEqual([]);
      expect(inputs).toContain('functions/lambda-event-streams.ts');

      const { port } = server.address() as AddressInfo;
      const { stdout } = await run(process.execPath, [file], { env: { ...process.env, ENDPOINT: `http://127.0.0.1:${port}` } });

      expect(JSON.parse(stdout)).toEqual({
        status: 200,
        payload: '{"pong":1}',
        refused:
          "Event streams are not bundled in Stackyard's Lambda functions (functions/lambda-event-streams.ts): no route " +
          'sends an operation that streams events.',
      });
      expect(invocations).toEqual([{ method: 'POST', url: '/2015-03-31/functions/gate/invocations', body: '{"ping":1}' }]);
    });
  });
});
