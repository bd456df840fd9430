import { InvalidInputError } from '../errors.js';
import type { HookFormat } from '../../ports/hook-store.js';

/** Pulumi Cloud's webhook formats: the raw JSON payload, a Slack incoming-webhook message, a Microsoft Teams card. */
export const HOOK_FORMATS: readonly HookFormat[] = ['raw', 'slack', 'ms_teams'];

/** The format a hook request names (`raw` when none), or an `InvalidInputError` listing Pulumi's. */
export function validateHookFormat(format: unknown): HookFormat {
  if (format === undefined || format === null || format === '') return 'raw';
  const known = HOOK_FORMATS.find((f) => f === format);
  if (!known) throw new InvalidInputError(`Unknown hook format '${String(format).slice(0, 40)}': expected one of ${HOOK_FORMATS.join(', ')}.`);
  return known;
}

type Payload = Record<string, unknown>;
interface Drifted {
  urn: string;
  change: string;
  properties: string[];
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** What happened, in one line: `acme/web/prod: update succeeded (alice)`. */
function headline(payload: Payload): string {
  const org = text((payload.organization as Payload | undefined)?.githubLogin);
  const stack = payload.projectName ? `${org}/${text(payload.projectName)}/${text(payload.stackName)}` : org;
  const who = text((payload.user as Payload | undefined)?.githubLogin);
  const event = text(payload.event).replace(/_/g, ' ');
  return `${stack}: ${event}${who ? ` (${who})` : ''}`;
}

/** The lines under the headline: drifted resources with their properties, an update's changes, a ping's message. */
function details(payload: Payload): string[] {
  if (payload.event === 'drift_detected') {
    const resources = (payload.resources as Drifted[] | undefined) ?? [];
    const lines = resources.map((r) => `${r.change === 'delete' ? 'deleted' : 'changed'}: ${r.urn.split('::').at(-1)} (${r.urn.split('::').at(-2)})${r.properties.length ? ` — ${r.properties.join(', ')}` : ''}`);
    const more = Number(payload.resourceCount ?? 0) - resources.length;
    return more > 0 ? [...lines, `…and ${more} more`] : lines;
  }
  const changes = Object.entries((payload.resourceChanges as Record<string, number> | undefined) ?? {}).filter(([op, n]) => op !== 'same' && n > 0);
  if (changes.length > 0) return [changes.map(([op, n]) => `${n} ${op}`).join(', ')];
  return payload.message ? [text(payload.message)] : [];
}

function link(payload: Payload): string | undefined {
  return text(payload.driftUrl) || text(payload.updateUrl) || undefined;
}

/**
 * The body a hook receives: `raw` is the payload itself (Pulumi Cloud's webhook JSON); `slack` is an incoming-webhook
 * message (`text` in Slack's mrkdwn, with a link); `ms_teams` is an Office 365 connector `MessageCard`. The signature,
 * when the hook has a secret, is over the body as sent.
 */
export function renderHookBody(format: HookFormat | undefined, payload: Payload): string {
  if (format === undefined || format === 'raw') return JSON.stringify(payload);
  const title = headline(payload);
  const lines = details(payload);
  const url = link(payload);
  if (format === 'slack') {
    const heading = url ? `*<${url}|${title}>*` : `*${title}*`;
    return JSON.stringify({ text: [heading, ...lines.map((line) => `• ${line}`)].join('\n') });
  }
  return JSON.stringify({
    '@type': 'MessageCard',
    '@context': 'https://schema.org/extensions',
    summary: title,
    title,
    themeColor: payload.event === 'drift_detected' || text(payload.result) === 'failed' ? 'D13438' : '5C2D91',
    text: lines.join('<br>'),
    ...(url ? { potentialAction: [{ '@type': 'OpenUri', name: 'Open in Stackyard', targets: [{ os: 'default', uri: url }] }] } : {}),
  });
}
