/**
 * A loopback HTTP server answering the policy routes with Pulumi's apitype bodies (sdk/go/common/apitype/policy.go),
 * recording every request, so the CLI's client is tested on the wire until it runs against `stackyard serve`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
  contentType?: string;
  /** JSON bodies parsed; others as raw bytes. */
  body?: unknown;
  raw: Buffer;
}

/** What a route answers: a status and a JSON body, or raw bytes. */
export type Answer = { status?: number; json?: unknown; bytes?: Buffer };

export class PolicyLoopback {
  readonly seen: SeenRequest[] = [];
  private readonly server: Server;
  private readonly routes = new Map<string, (req: SeenRequest) => Answer>();
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      void this.handle(req).then(({ status = 200, json, bytes }) => {
        if (bytes) {
          res.writeHead(status, { 'content-type': 'application/octet-stream' }).end(bytes);
        } else {
          res.writeHead(status, { 'content-type': 'application/json' }).end(json === undefined ? '' : JSON.stringify(json));
        }
      });
    });
  }

  /** Answers `METHOD /path` with `answer` (a function sees the request). */
  on(route: string, answer: Answer | ((req: SeenRequest) => Answer)): this {
    this.routes.set(route, typeof answer === 'function' ? answer : () => answer);
    return this;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** The requests other than the default-organization lookup, as `METHOD path`. */
  calls(): string[] {
    return this.seen.filter((r) => !r.path.startsWith('/api/user')).map((r) => `${r.method} ${r.path}`);
  }

  private async handle(req: IncomingMessage): Promise<Answer> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = (req.url ?? '').split('?')[0]!;
    const contentType = req.headers['content-type'];
    let body: unknown;
    if (raw.length && contentType === 'application/json') body = JSON.parse(raw.toString('utf8'));
    const seen: SeenRequest = { method: req.method ?? '', path, authorization: req.headers.authorization, contentType, body, raw };
    this.seen.push(seen);
    const route = this.routes.get(`${req.method} ${path}`);
    if (route) return route(seen);
    if (path === '/api/user/organizations/default') return { status: 404, json: { code: 404, message: 'no default organization' } };
    if (path === '/api/user') return { json: { githubLogin: 'alice', organizations: [{ githubLogin: 'acme' }] } };
    return { status: 404, json: { code: 404, message: `no route ${req.method} ${path}` } };
  }
}
