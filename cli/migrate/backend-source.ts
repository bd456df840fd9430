/**
 * A Pulumi-compatible service (the Pulumi Cloud, another `stackyard serve`) or a Stackyard data folder as a
 * migration source: stacks listed across the user's organizations, each exported (current state and every
 * version of its history), secrets opened by the source's decrypt endpoint for that stack.
 */
import type { Backend, StackRef, UntypedDeployment } from '../backend/backend.js';
import { isNotFound } from '../backend/backend.js';
import { decrypterForStackFile } from '../secrets/source-secrets.js';
import { backendDecrypter } from '../secrets/service-decrypter.js';
import type { MigrationSource, SourceHistoryEntry, SourceStack } from './types.js';

const HISTORY_PAGE = 100;

export class BackendSource implements MigrationSource {
  readonly kind = 'service';

  constructor(
    private readonly backend: Backend,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get id(): string {
    return this.backend.url;
  }

  async stacks(): Promise<SourceStack[]> {
    const summaries = await this.backend.listStacks({});
    return summaries.map((summary) => this.stack(summary.ref));
  }

  private stack(ref: StackRef): SourceStack {
    const backend = this.backend;
    const env = this.env;
    let details: Promise<Awaited<ReturnType<Backend['getStack']>>> | undefined;
    const get = () => (details ??= backend.getStack(ref));
    const decrypter = backendDecrypter(backend, ref);
    return {
      name: `${ref.org}/${ref.project}/${ref.stack}`,
      org: ref.org,
      project: ref.project,
      stack: ref.stack,
      tags: async () => (await get()).tags,
      async busy() {
        const { activeUpdate } = await get();
        return activeUpdate ? `update ${activeUpdate} is running on the source stack: wait for it to finish, then run migrate again` : undefined;
      },
      async current() {
        if ((await get()).version === 0) return undefined;
        return backend.exportDeployment(ref);
      },
      async history() {
        const all = [];
        for (let page = 1; ; page++) {
          const entries = await backend.history(ref, page, HISTORY_PAGE);
          all.push(...entries);
          if (entries.length < HISTORY_PAGE) break;
        }
        return all
          .filter((info) => info.result === 'succeeded' || info.result === 'failed')
          .sort((a, b) => a.version - b.version)
          .map(
            (info): SourceHistoryEntry => ({
              kind: info.kind,
              result: info.result as 'succeeded' | 'failed',
              startTime: info.startTime,
              endTime: info.endTime ?? info.startTime,
              message: info.message ?? '',
              environment: info.environment ?? {},
              config: (info.config ?? {}) as SourceHistoryEntry['config'],
              ...(info.resourceChanges ? { resourceChanges: info.resourceChanges } : {}),
              deployment: () =>
                backend.exportDeployment(ref, info.version).catch((error: unknown): UntypedDeployment | undefined => {
                  if (isNotFound(error)) return undefined;
                  throw error;
                }),
            }),
          );
      },
      stateSecrets: async () => decrypter,
      configSecrets: async (file) => (await decrypterForStackFile(file, env)) ?? decrypter,
    };
  }

  async close(): Promise<void> {
    await this.backend.close();
  }
}
