import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ApiFunctions } from '../lib/constructs/api-functions.js';
import { DataKey } from '../lib/constructs/data-key.js';
import { StateBucket } from '../lib/constructs/state-bucket.js';
import { StateTable } from '../lib/constructs/state-table.js';
import { ECHO_HANDLER, FIXTURE_WIRING, bareStack, testApp } from './support.js';

describe('NodejsFunction bundling (local esbuild, no Docker)', () => {
  it('produces a minified ESM bundle with a source map and a working require, that runs', async () => {
    const app = testApp({ bundle: true });
    const stack = bareStack(app);
    const key = new DataKey(stack, 'DataKey');
    const bucket = new StateBucket(stack, 'StateBucket', { encryptionKey: key.key });
    const table = new StateTable(stack, 'StateTable', { keyDesign: FIXTURE_WIRING.keyDesign, timeToLiveAttribute: 'ttl' });
    new ApiFunctions(stack, 'Functions', {
      handlers: [{ name: 'Echo', entry: ECHO_HANDLER }],
      table: table.table,
      bucket: bucket.bucket,
      key: key.key,
      encryptionContextKeys: ['stackId'],
    });

    const template = Template.fromStack(stack);
    const assembly = app.synth();

    const fn = Object.values(template.findResources('AWS::Lambda::Function'))[0]!;
    expect(fn.Properties.Handler).toBe('index.handler');
    const assetHash = (fn.Properties.Code.S3Key as string).replace(/\.zip$/, '');
    const assetDir = join(assembly.directory, `asset.${assetHash}`);
    expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map']);
    const code = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    expect(code.startsWith('import { createRequire as __stackyardCreateRequire }')).toBe(true);
    expect(code).not.toContain('const digest =');
    expect(code).toContain('//# sourceMappingURL=index.mjs.map');
    const map = JSON.parse(readFileSync(join(assetDir, 'index.mjs.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown };
    expect(map.sources.some((s) => s.endsWith('echo-handler.ts'))).toBe(true);
    expect(map.sourcesContent).toBeUndefined();

    const bundled = (await import(pathToFileURL(join(assetDir, 'index.mjs')).href)) as {
      handler: (event: { rawPath: string }) => Promise<{ statusCode: number; body: string }>;
    };
    const response = await bundled.handler({ rawPath: '/api/user' });
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ path: '/api/user', name: 'echo' });
    expect(existsSync(join(assembly.directory, 'manifest.json'))).toBe(true);
  });
});
