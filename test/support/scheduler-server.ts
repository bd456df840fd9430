import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A schedule the stand-in holds, as the SDK sent it (CreateSchedule / UpdateSchedule's body). */
export interface HeldSchedule {
  Name: string;
  GroupName: string;
  ScheduleExpression: string;
  ScheduleExpressionTimezone?: string;
  State?: string;
  ActionAfterCompletion?: string;
  FlexibleTimeWindow: { Mode: string; MaximumWindowInMinutes?: number };
  Target: { Arn: string; RoleArn: string; Input?: string };
  Description?: string;
}

/** A running EventBridge Scheduler stand-in with the schedules it holds. */
export interface SchedulerStandIn {
  endpoint: string;
  /** The schedule `name` of `group`, or `undefined`. */
  schedule(group: string, name: string): HeldSchedule | undefined;
  /** How many schedules `group` holds. */
  count(group: string): number;
  /** The next `n` requests are answered 500 InternalServerException (an outage). */
  failNext(n: number): void;
  stop(): Promise<void>;
}

/**
 * Why EventBridge refuses an expression, or `undefined`: `at(yyyy-mm-ddThh:mm:ss)`, `rate(n unit)`, or a six-field
 * `cron(…)` with exactly one of day-of-month and day-of-week `?` and days of the week 1–7 or SUN–SAT.
 */
function expressionProblem(expression: string): string | undefined {
  if (/^at\(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\)$/.test(expression)) return undefined;
  if (/^rate\(\d+ (minute|minutes|hour|hours|day|days)\)$/.test(expression)) return undefined;
  const cron = /^cron\((.*)\)$/.exec(expression)?.[1]?.split(' ');
  if (!cron || cron.length !== 6) return 'Invalid Schedule Expression';
  const [, , day, , weekday] = cron;
  if ((day === '?') === (weekday === '?')) return 'Invalid Schedule Expression: one of day-of-month and day-of-week must be ?';
  if (weekday !== '?' && !/^((SUN|MON|TUE|WED|THU|FRI|SAT|[1-7])([-,]|$))+$/.test(weekday!)) return 'Invalid Schedule Expression: day-of-week is 1-7 or SUN-SAT';
  return undefined;
}

/**
 * EventBridge Scheduler's REST-JSON protocol on 127.0.0.1, enough for schedule triggers: CreateSchedule (POST
 * /schedules/{Name}; ConflictException when it exists), UpdateSchedule (PUT; ResourceNotFoundException when it does
 * not), DeleteSchedule (DELETE ?groupName=; ResourceNotFoundException when missing) and GetSchedule, with the
 * expression checks that catch a five-field cron sent as it is.
 */
export async function startSchedulerServer(): Promise<SchedulerStandIn> {
  const groups = new Map<string, Map<string, HeldSchedule>>();
  let failures = 0;
  const groupOf = (name: string) => groups.get(name) ?? groups.set(name, new Map()).get(name)!;
  const fail = (res: ServerResponse, status: number, type: string, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
    res.end(JSON.stringify({ Message: message }));
  };
  const answer = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const handle = (req: IncomingMessage, res: ServerResponse, text: string) => {
    if (failures > 0) {
      failures--;
      return fail(res, 500, 'InternalServerException', 'Unexpected server error.');
    }
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const name = /^\/schedules\/([^/]+)$/.exec(url.pathname)?.[1];
    if (!name) return fail(res, 404, 'ResourceNotFoundException', `No route ${url.pathname}.`);
    const decoded = decodeURIComponent(name);
    const body = (text ? JSON.parse(text) : {}) as Partial<HeldSchedule>;
    const group = groupOf(body.GroupName ?? url.searchParams.get('groupName') ?? 'default');
    const held = group.get(decoded);
    const arn = `arn:aws:scheduler:us-east-1:000000000000:schedule/${body.GroupName ?? 'default'}/${decoded}`;
    if (req.method === 'GET') return held ? answer(res, { ...held, Arn: arn }) : fail(res, 404, 'ResourceNotFoundException', `Schedule ${decoded} does not exist.`);
    if (req.method === 'DELETE') {
      if (!held) return fail(res, 404, 'ResourceNotFoundException', `Schedule ${decoded} does not exist.`);
      group.delete(decoded);
      return answer(res, {});
    }
    if (req.method !== 'POST' && req.method !== 'PUT') return fail(res, 405, 'ValidationException', `${req.method} is not supported by the stand-in.`);
    if (req.method === 'POST' && held) return fail(res, 409, 'ConflictException', `Schedule ${decoded} already exists.`);
    if (req.method === 'PUT' && !held) return fail(res, 404, 'ResourceNotFoundException', `Schedule ${decoded} does not exist.`);
    const problem = expressionProblem(String(body.ScheduleExpression));
    if (problem) return fail(res, 400, 'ValidationException', problem);
    group.set(decoded, { ...(body as HeldSchedule), Name: decoded, GroupName: body.GroupName ?? 'default' });
    return answer(res, { ScheduleArn: arn });
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    schedule: (group, name) => groups.get(group)?.get(name),
    count: (group) => groups.get(group)?.size ?? 0,
    failNext(n) {
      failures = n;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
