import type { DeploymentLogLine, DeploymentRun } from '../../ports/deployment-store.js';

/** Pulumi's `UserInfo`, from what a run records of who queued it. */
export interface RunUserView {
  name: string;
  githubLogin: string;
  avatarUrl: string;
}

/** A run as Pulumi's `GetDeploymentResponse` / `ListDeploymentSnapshot`, plus why it failed. */
export interface DeploymentRunView {
  id: string;
  created: string;
  modified: string;
  status: DeploymentRun['status'];
  version: number;
  requestedBy: RunUserView;
  projectName: string;
  stackName: string;
  pulumiOperation: DeploymentRun['operation'];
  updates: { id: string; updateID: string; version: number }[];
  jobs: { status: DeploymentRun['status']; started?: string; lastUpdated: string; steps: never[] }[];
  initiator: string;
  /** Stackyard's own: the reason a failed run failed. */
  failure?: string;
  /** Stackyard's own: the pull (merge) request a push webhook's preview is for. */
  pullRequest?: { provider: 'github' | 'gitlab'; number: number; commit: string };
  /** Stackyard's own: what became of posting the result back to it (`at` as ISO 8601). */
  resultPost?: { status: 'posted' | 'failed' | 'skipped'; detail: string; at: string };
}

/** Pulumi's `DeploymentLogs`: the lines, and where to read on while more may come. */
export interface DeploymentLogsView {
  lines: { timestamp: string; line: string }[];
  nextToken?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The view of one run. */
export function runView(run: DeploymentRun): DeploymentRunView {
  return {
    id: run.id,
    created: iso(run.created),
    modified: iso(run.modified),
    status: run.status,
    version: run.version,
    requestedBy: { name: run.requestedBy, githubLogin: run.requestedBy, avatarUrl: '' },
    projectName: run.project,
    stackName: run.stack,
    pulumiOperation: run.operation,
    updates: run.updates.map((update) => ({ id: update.updateId, updateID: update.updateId, version: update.version })),
    jobs: [{ status: run.status, lastUpdated: iso(run.modified), steps: [] }],
    initiator: run.initiator,
    ...(run.failure ? { failure: run.failure } : {}),
    ...(run.pullRequest ? { pullRequest: run.pullRequest } : {}),
    ...(run.resultPost ? { resultPost: { ...run.resultPost, at: iso(run.resultPost.at) } } : {}),
  };
}

/** True once a run can change no more. */
export function isFinished(run: Pick<DeploymentRun, 'status'>): boolean {
  return run.status === 'succeeded' || run.status === 'failed' || run.status === 'skipped';
}

/**
 * A page of a run's log. `nextToken` (the offset to read from) is given while the run may still write or more lines
 * are stored, so `deployment logs --follow` polls until it is absent.
 */
export function logsView(run: DeploymentRun, lines: DeploymentLogLine[], offset: number, count: number): DeploymentLogsView {
  const view: DeploymentLogsView = { lines: lines.map((line) => ({ timestamp: iso(line.timestamp), line: line.line })) };
  if (!isFinished(run) || lines.length === count) view.nextToken = String(offset + lines.length);
  return view;
}
