/**
 * A loopback git server for runner tests: bare repositories made at test time, served over git's dumb HTTP protocol
 * (plain files, after `git update-server-info`), which `git clone http://…` reads like any remote. Given a
 * credential, it answers 401 (HTTP Basic) to any request that does not carry exactly that one, as a private
 * repository's host does.
 */
import { execFileSync } from 'node:child_process';
import { timingSafeEqual } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';

/** A folder of bare repositories behind http://127.0.0.1:<port>/<name>.git. */
export class GitHttpServer {
  readonly root = mkdtempSync(join(tmpdir(), 'stackyard-git-'));
  private server?: Server;
  url = '';
  /** `Authorization` headers refused so far (a test checks a wrong credential was offered, then turned away). */
  refused = 0;

  /** `basicAuth`: the one user name and password every request must carry. */
  constructor(private readonly options: { basicAuth?: { userName: string; password: string } } = {}) {}

  private authorized(header: string | undefined): boolean {
    const wanted = this.options.basicAuth;
    if (!wanted) return true;
    const expected = Buffer.from(`Basic ${Buffer.from(`${wanted.userName}:${wanted.password}`).toString('base64')}`);
    const given = Buffer.from(header ?? '');
    const matches = given.length === expected.length && timingSafeEqual(given, expected);
    if (header && !matches) this.refused += 1;
    return matches;
  }

  async start(): Promise<void> {
    const server = createServer((request, response) => {
      if (!this.authorized(request.headers.authorization)) {
        response.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
        return;
      }
      const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname));
      const file = join(this.root, path);
      try {
        if (!file.startsWith(this.root) || !statSync(file).isFile()) throw new Error('not a file');
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(file));
      } catch {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /**
   * Makes `<name>.git` from branches of files (branch → relative path → text; the first branch is the default):
   * each branch is one commit on top of an empty history, then the bare repository is prepared for dumb HTTP.
   */
  repository(name: string, branches: Record<string, Record<string, string>>): string {
    const work = mkdtempSync(join(tmpdir(), 'stackyard-git-work-'));
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: work, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
    try {
      const [first] = Object.keys(branches);
      git('init', '--quiet', '--initial-branch', first!);
      for (const [branch, files] of Object.entries(branches)) {
        if (branch !== first) git('checkout', '--quiet', '--orphan', branch);
        git('rm', '-r', '--quiet', '--cached', '--ignore-unmatch', '.');
        for (const [path, text] of Object.entries(files)) {
          mkdirSync(dirname(join(work, path)), { recursive: true });
          writeFileSync(join(work, path), text);
        }
        git('add', ...Object.keys(files));
        git('commit', '--quiet', '-m', `${branch}`);
      }
      git('checkout', '--quiet', first!);
      const bare = join(this.root, `${name}.git`);
      execFileSync('git', ['clone', '--quiet', '--bare', work, bare]);
      execFileSync('git', ['update-server-info'], { cwd: bare });
      return `${this.url}/${name}.git`;
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    rmSync(this.root, { recursive: true, force: true });
  }
}
