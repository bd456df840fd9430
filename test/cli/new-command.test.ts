/**
 * `new` through the bundled CLI on `login --local`: a project and stack from a template folder, and from .zip and
 * .tar.gz template archives served by a loopback HTTP server, with Pulumi's template format (`template:` description,
 * quickstart, config with defaults and secrets), flags and refusals (needs `npm run build`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { create } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CliSandbox, removeSandboxes } from './cli-harness.js';

const TEMPLATE_YAML = `name: \${PROJECT}
runtime: nodejs
description: \${DESCRIPTION}
template:
  description: A minimal template
  quickstart: Then try \`stackyard up\`.
  important: true
  config:
    region:
      description: The region
      default: eu-west-1
    aws:profile:
      default: ci
    apiKey:
      description: The API key
      secret: true
      default: s3cret
`;
const FILES: Record<string, string> = { 'Pulumi.yaml': TEMPLATE_YAML, 'index.js': 'exports.project = "${PROJECT}";\n', '.pulumi.template.yaml': 'legacy: true\n' };

/** A ZIP archive of `files` under `prefix/` (deflated entries), as GitHub serves a repository. */
function zip(files: Record<string, string>, prefix: string): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const path = Buffer.from(`${prefix}/${name}`);
    const data = Buffer.from(text);
    const packed = deflateRawSync(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc32(data), 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(path.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc32(data), 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(path.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, path, packed);
    centrals.push(central, path);
    offset += 30 + path.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

describe('new', () => {
  const sandbox = new CliSandbox();
  const template = join(sandbox.root, 'templates', 'minimal');
  const archives: Record<string, Buffer> = {};
  let server: Server;
  let base: string;
  const cli = (...args: string[]) => sandbox.run(sandbox.root, args);
  const stackFile = (dir: string) => parse(readFileSync(join(sandbox.root, dir, 'Pulumi.dev.yaml'), 'utf8')) as { config: Record<string, unknown> };

  beforeAll(async () => {
    mkdirSync(template, { recursive: true });
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(template, name), text);
    archives['/minimal.zip'] = zip(FILES, 'templates-main');
    await create({ gzip: true, cwd: join(sandbox.root, 'templates'), file: join(sandbox.root, 'minimal.tgz') }, ['minimal']);
    archives['/minimal.tar.gz'] = readFileSync(join(sandbox.root, 'minimal.tgz'));
    server = createServer((request, response) => {
      const body = archives[request.url ?? ''];
      response.writeHead(body ? 200 : 404).end(body ?? 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await cli('login', '--local');
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    removeSandboxes();
  });

  it('makes the project, its stack and its config from a template folder, taking every default with -y', async () => {
    // Act
    const result = await cli('new', template, '--dir', 'app', '-y');

    // Assert
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      "Created project 'app'\n\nCreated stack 'dev'\n\nSaved config\n\nYour new project is ready to go!\n\n" +
        'To perform an initial deployment, run the following commands:\n\n   1. cd app\n   2. stackyard install\n\nThen, run `stackyard up`\n\nThen try `stackyard up`.\n',
    );
    expect(readFileSync(join(sandbox.root, 'app', 'Pulumi.yaml'), 'utf8')).toBe('name: app\nruntime: nodejs\ndescription: A minimal template\n');
    expect(readFileSync(join(sandbox.root, 'app', 'index.js'), 'utf8')).toBe('exports.project = "app";\n');
    expect(stackFile('app').config).toEqual({ 'app:region': 'eu-west-1', 'aws:profile': 'ci', 'app:apiKey': { secure: expect.any(String) } });
    expect((await sandbox.run(join(sandbox.root, 'app'), ['config', 'get', 'apiKey'])).stdout).toBe('s3cret\n');
    expect(JSON.parse((await sandbox.run(join(sandbox.root, 'app'), ['stack', 'ls', '--json'])).stdout)).toMatchObject([{ name: 'dev', current: true }]);
  });

  it('takes the name, description, stack and config flags over the template\'s defaults', async () => {
    const result = await cli('new', template, '--dir', 'named', '-y', '-n', 'shop', '-d', 'The shop: "v2"', '-s', 'prod', '-c', 'region=us-east-1', '-c', 'extra=1', '--config-path', '-c', 'db.port=5432');

    expect(result.status, result.stderr).toBe(0);
    expect(parse(readFileSync(join(sandbox.root, 'named', 'Pulumi.yaml'), 'utf8'))).toEqual({ name: 'shop', runtime: 'nodejs', description: 'The shop: "v2"' });
    const config = (parse(readFileSync(join(sandbox.root, 'named', 'Pulumi.prod.yaml'), 'utf8')) as { config: Record<string, unknown> }).config;
    expect(config).toMatchObject({ 'shop:region': 'us-east-1', 'shop:extra': '1', 'shop:db': { port: 5432 }, 'aws:profile': 'ci' });
  });

  it.each(['/minimal.zip', '/minimal.tar.gz'])('makes the project from a template archive URL (%s)', async (path) => {
    const dir = `from-${path.slice(1).replace(/\W/g, '-')}`;

    const result = await cli('new', `${base}${path}`, '--dir', dir, '-y', '-s', 'dev');

    expect(result.status, result.stderr).toBe(0);
    expect(parse(readFileSync(join(sandbox.root, dir, 'Pulumi.yaml'), 'utf8'))).toMatchObject({ name: dir, description: 'A minimal template' });
    expect(stackFile(dir).config).toMatchObject({ [`${dir}:region`]: 'eu-west-1' });
  });

  it('writes the project alone with --generate-only and names the steps left', async () => {
    const result = await cli('new', template, '--dir', 'gen', '-y', '-g');

    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('   1. cd gen\n   2. stackyard install\n   3. stackyard stack init\n');
    expect(result.stdout).not.toContain('Created stack');
  });

  it.each([
    [['new', 'TEMPLATE', '--dir', 'app', '-y'], 1, 'is not empty; use --force to continue and overwrite existing files, or use --dir to specify an empty directory.'],
    [['new', 'TEMPLATE', '--dir', 'fresh'], 1, 'error: non-interactive mode requires --yes flag'],
    [['new', 'aws-typescript', '-y', '--dir', 'x1'], 1, "error: template 'aws-typescript' not found: stackyard takes a template folder or a .zip/.tar.gz URL"],
    [['new', 'https://github.com/pulumi/templates', '-y', '--dir', 'x2'], 1, 'does not clone git repositories'],
    [['new', 'BASE/minimal.zip', '-y', '--offline', '--dir', 'x3'], 1, 'error: cannot use http://'],
    [['new', 'BASE/missing.zip', '-y', '--dir', 'x4'], 1, 'error: failed to download template: 404'],
    [['new', 'TEMPLATE', '-y', '-n', 'pulumi', '--dir', 'x5'], 1, "error: 'pulumi' is not a valid project name"],
    [['new', 'TEMPLATE', '-y', '--secrets-provider', 'passphrase', '--dir', 'x6'], 2, 'error: --secrets-provider is not supported by stackyard'],
  ])('refuses %j', async (argv, status, message) => {
    const result = await cli(...argv.map((a) => a.replace('TEMPLATE', template).replace('BASE', base)));

    expect(result.status).toBe(status);
    expect(result.stderr).toContain(message);
  });

  it('refuses a folder that is not empty, and overwrites its files with --force', async () => {
    mkdirSync(join(sandbox.root, 'taken'));
    writeFileSync(join(sandbox.root, 'taken', 'index.js'), 'mine\n');

    const refused = await cli('new', template, '--dir', 'taken', '-y', '-n', 'taken2', '-s', 'dev');
    const forced = await cli('new', template, '--dir', 'taken', '-y', '-n', 'taken2', '-s', 'dev', '--force');

    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('is not empty; use --force');
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(join(sandbox.root, 'taken', 'index.js'), 'utf8')).toBe('exports.project = "taken2";\n');
  });
});
