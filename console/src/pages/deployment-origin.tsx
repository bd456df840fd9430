import { when } from '../format.js';

/** The pull (merge) request a push webhook queued a run's preview for (Stackyard's own `pullRequest`). */
export interface RunPullRequest {
  provider: 'github' | 'gitlab';
  number: number;
  commit: string;
}

/** What became of posting a run's result back to its pull request (Stackyard's own `resultPost`). */
export interface RunResultPost {
  status: 'posted' | 'failed' | 'skipped';
  detail: string;
  at: string;
}

/** Each outcome's words and the result colour it borrows (the words alone carry the meaning). */
const RESULT_POST_BADGE: Record<RunResultPost['status'], [text: string, result: string]> = {
  posted: ['Posted', 'succeeded'],
  failed: ['Not posted', 'failed'],
  skipped: ['Skipped', 'skipped'],
};

/** "GitHub pull request #4 at 1a2b3c4": GitLab calls them merge requests and numbers them with `!`. */
export function PullRequestRef({ pr }: { pr: RunPullRequest }) {
  const [host, kind, mark] = pr.provider === 'gitlab' ? ['GitLab', 'merge request', '!'] : ['GitHub', 'pull request', '#'];
  return (
    <span title={pr.commit}>
      {host} {kind} {mark}
      {pr.number} at <code>{pr.commit.slice(0, 7)}</code>
    </span>
  );
}

/** Whether the result went back to the pull request, and where it went or why it did not. */
export function ResultPostNote({ post }: { post: RunResultPost }) {
  const [text, result] = RESULT_POST_BADGE[post.status];
  return (
    <span title={`at ${when(Date.parse(post.at))}`}>
      <span class={`badge result-${result}`}>{text}</span>{' '}
      {post.detail}
    </span>
  );
}
