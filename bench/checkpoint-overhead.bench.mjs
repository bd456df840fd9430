// bench checkpoint-overhead: what the API adds to a checkpoint save. Numerator: one `PATCH …/update/{id}/checkpoint`
// of a 1 MB state, gzip-compressed as the Pulumi CLI sends it, through `stackyard serve` in aws mode (the Lambda
// handler code behind the API Gateway v2 event adapter) to the stand-ins, timed at the client. Denominator: the two
// storage writes such a save fundamentally needs, done directly with the SDK from this process: an S3 PutObject of the
// same 1 MB state (write-once, `IfNoneMatch: *`) plus one conditional DynamoDB UpdateItem. Both are interleaved in
// the same run against the same DynamoDB Local, s3rver and KMS stand-ins; medians of ROUNDS each.
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startAwsStandIns } from '../test/support/aws-stand-ins.ts';
import { call, closeClient, expectOk, startBundledServe } from './bundled-serve.mjs';
import { baseDeployment } from './journal-fixture.ts';

const ROUNDS = Number(process.env.BENCH_CHECKPOINT_ROUNDS ?? 120);
const WARMUP = 10;
const STATE_BYTES = 1024 * 1024;
const ADMIN_TOKEN = `bench-${randomUUID()}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A realistic (hash-heavy) deployment of at least 1 MiB of JSON. */
function oneMegabyteState() {
  for (let count = 900; ; count += 5) {
    const state = baseDeployment(count);
    if (Buffer.byteLength(JSON.stringify(state)) >= STATE_BYTES) return state;
  }
}

const standIns = await startAwsStandIns();
let serve;
const s3 = new S3Client({
  endpoint: standIns.s3.endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
const dynamodb = new DynamoDBClient({ endpoint: standIns.dynamodb.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
const documents = DynamoDBDocumentClient.from(dynamodb);
try {
  serve = await startBundledServe('/nonexistent', { ...standIns.env, STACKYARD_STORAGE: 'aws', STACKYARD_ADMIN_TOKEN: ADMIN_TOKEN });
  const token = `token ${ADMIN_TOKEN}`;
  const stack = '/api/stacks/admin/bench/dev';
  await expectOk(call(serve.url, 'POST', '/api/stacks/admin/bench', { auth: token, body: Buffer.from('{"stackName":"dev"}') }), 'create stack');
  const { updateID } = await expectOk(call(serve.url, 'POST', `${stack}/update`, { auth: token, body: Buffer.from('{"options":{"dryRun":false}}') }), 'create update');
  const started = await expectOk(call(serve.url, 'POST', `${stack}/update/${updateID}`, { auth: token, body: Buffer.from('{"tags":{}}') }), 'start');
  const lease = `update-token ${started.token}`;

  const state = oneMegabyteState();
  const stateBytes = Buffer.from(JSON.stringify(state));
  // Compressed once: compressing is the client's work, and the CLI does it before the request leaves.
  const patchBody = gzipSync(JSON.stringify({ isInvalid: false, version: state.version, deployment: state.deployment }));

  const rawKey = { pk: `BENCH#${randomUUID()}`, sk: 'LEASE' };
  await documents.send(new PutCommand({ TableName: standIns.table, Item: { ...rawKey, saves: 0 } }));
  let saves = 0;
  const rawSave = async () => {
    await s3.send(new PutObjectCommand({ Bucket: standIns.bucket, Key: `bench/${randomUUID()}`, Body: stateBytes, ContentType: 'application/json', IfNoneMatch: '*' }));
    await documents.send(
      new UpdateCommand({
        TableName: standIns.table,
        Key: rawKey,
        UpdateExpression: 'SET #saves = :next',
        ConditionExpression: '#saves = :current',
        ExpressionAttributeNames: { '#saves': 'saves' },
        ExpressionAttributeValues: { ':current': saves, ':next': saves + 1 },
      }),
    );
    saves += 1;
  };
  const apiSave = () => expectOk(call(serve.url, 'PATCH', `${stack}/update/${updateID}/checkpoint`, { auth: lease, body: patchBody, gzipped: true }), 'checkpoint');

  const api = [];
  const raw = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    let started = performance.now();
    await apiSave();
    const apiMs = performance.now() - started;
    started = performance.now();
    await rawSave();
    const rawMs = performance.now() - started;
    if (round >= WARMUP) {
      api.push(apiMs);
      raw.push(rawMs);
    }
  }
  await expectOk(call(serve.url, 'POST', `${stack}/update/${updateID}/complete`, { auth: lease, body: Buffer.from('{"status":"succeeded"}') }), 'complete');
  if (process.env.BENCH_VERBOSE) {
    process.stderr.write(`state ${stateBytes.length} B (gzip ${patchBody.length} B); api median ${median(api).toFixed(2)} ms, raw median ${median(raw).toFixed(2)} ms\n`);
  }
  process.stdout.write(
    `bench checkpoint-overhead: ${(median(api) / median(raw)).toFixed(2)}x (checkpoint PATCH of 1 MB via API / raw S3 PUT + DynamoDB conditional update)\n`,
  );
} finally {
  closeClient();
  serve?.child.kill('SIGTERM');
  s3.destroy();
  documents.destroy();
  dynamodb.destroy();
  await standIns.stop();
}
