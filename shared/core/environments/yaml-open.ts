/**
 * Anonymous environments (ESC's `yaml/open`): a caller's own YAML — how the `pulumi` CLI opens a stack's
 * `environment:` (`imports: [...]` plus the stack's values) — evaluated with the caller's permissions, each import
 * needing `open`. The session keeps the YAML itself (nothing else names it), sealed under a data key of its own, bound
 * to the session's id; reading the session evaluates it again for the same caller, so no value is ever stored.
 */
import { randomBytes } from 'node:crypto';
import { ANONYMOUS_ENVIRONMENT, evalEnvironment, hasErrors, loadEnvironment as parseDefinition, type EscEnvironment } from '../../esc/index.js';
import { audited } from '../audit/audit.js';
import { DiagnosticsError, InvalidInputError, NotFoundError, TooLargeError } from '../errors.js';
import { requireMember } from '../kernel/authorization.js';
import type { ServiceDeps } from '../kernel/deps.js';
import type { Principal } from '../kernel/principal.js';
import { validateOrgName } from '../names.js';
import { dataKeyContext, openSecret, sealSecret } from '../secrets/secrets-envelope.js';
import { evaluationOptions } from './evaluation.js';
import { DEFAULT_OPEN_MS, emptyEnvironment, requireOpenDuration } from './open-sessions.js';

/** A session keeps its YAML in one storage item (DynamoDB's are at most 400 KB): stack environments are small. */
export const MAX_ANONYMOUS_YAML_BYTES = 128 * 1024;

/** The `environmentId` of an anonymous session of `org`: no environment's id (those are UUIDs) can equal it. */
function anonymousId(org: string): string {
  return `yaml:${org}`;
}

/** The scope (encryption context and additional data) of one session's sealed YAML. */
function sessionScope(sessionId: string): string {
  return `environment-yaml-${sessionId}`;
}

/** The environments the YAML imports, by name as written, for the audit log. */
function importNames(yaml: string): string[] {
  const { env } = parseDefinition(ANONYMOUS_ENVIRONMENT, yaml);
  return (env?.imports ?? []).flatMap((decl) => (decl.environment?.value ? [decl.environment.value] : []));
}

/** Evaluates the YAML as its caller opens it; errors refuse it with every diagnostic (ESC's 400 `diagnostics`). */
async function evaluate(deps: ServiceDeps, principal: Principal, org: string, yaml: string): Promise<EscEnvironment> {
  const { environment, diagnostics } = await evalEnvironment(ANONYMOUS_ENVIRONMENT, yaml, evaluationOptions(deps, principal, org, 'open', undefined));
  if (hasErrors(diagnostics)) {
    const errors = diagnostics.filter((d) => d.severity === 'error');
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more error${errors.length === 2 ? '' : 's'})` : '';
    throw new DiagnosticsError(`The environment could not be opened: ${errors[0]!.summary}${more}`, diagnostics);
  }
  return environment ?? emptyEnvironment();
}

/** `openYaml` / `readYamlOpen`: ESC's `POST /yaml/open` and `GET /yaml/open/{id}`. */
export function createYamlOpenSessions(deps: ServiceDeps) {
  const store = deps.storage.environments;
  return {
    async openYaml(principal: Principal, org: string, yaml: string, durationMs = DEFAULT_OPEN_MS): Promise<{ id: string }> {
      validateOrgName(org);
      requireMember(principal, org);
      if (typeof yaml !== 'string') throw new InvalidInputError('The definition must be YAML text.');
      const bytes = Buffer.byteLength(yaml, 'utf8');
      if (bytes > MAX_ANONYMOUS_YAML_BYTES) {
        throw new TooLargeError(`The environment is ${bytes} bytes; an anonymous open takes at most ${MAX_ANONYMOUS_YAML_BYTES}: move values into a named environment and import it.`);
      }
      requireOpenDuration(durationMs);
      const imports = importNames(yaml);
      const by = principal.token?.kind === 'deployment' ? ` for deployment ${principal.token.runId} (${principal.token.description})` : '';
      const description = `opened an anonymous environment importing ${imports.length > 0 ? imports.join(', ') : 'nothing'}${by}`;
      return audited(deps, principal, { org, event: 'environment.opened', target: `${org}/yaml`, description }, async () => {
        await evaluate(deps, principal, org, yaml);
        const id = randomBytes(16).toString('hex');
        const key = await deps.storage.keys.generateDataKey(dataKeyContext(sessionScope(id)));
        const sealed = sealSecret(key.plaintext, sessionScope(id), Buffer.from(yaml, 'utf8'));
        const now = deps.now();
        await store.createOpenSession({
          id,
          environmentId: anonymousId(org),
          revision: 0,
          login: principal.login,
          createdAt: now,
          expiresAt: now + durationMs,
          encryptedDataKey: Buffer.from(key.ciphertext).toString('base64'),
          sealedDefinition: Buffer.from(sealed).toString('base64'),
        });
        return { id };
      });
    },

    async readYamlOpen(principal: Principal, org: string, sessionId: string): Promise<EscEnvironment> {
      validateOrgName(org);
      requireMember(principal, org);
      const session = await store.getOpenSession(sessionId);
      const missing = () => new NotFoundError(`Open session '${String(sessionId).slice(0, 64)}' not found or expired: open the environment again.`);
      if (!session || session.environmentId !== anonymousId(org) || session.login !== principal.login) throw missing();
      if (!session.encryptedDataKey || !session.sealedDefinition) throw missing();
      const scope = sessionScope(session.id);
      const key = await deps.storage.keys.decryptDataKey(Buffer.from(session.encryptedDataKey, 'base64'), dataKeyContext(scope));
      const yaml = openSecret(key, scope, Buffer.from(session.sealedDefinition, 'base64'));
      if (!yaml) throw missing();
      return evaluate(deps, principal, org, Buffer.from(yaml).toString('utf8'));
    },
  };
}
