import { promises as fs } from 'node:fs';
import { InvalidInputError } from '../../core/errors.js';
import type { ConsoleSession, ConsoleSessionStore, LoginCode } from '../../ports/console-session-store.js';
import { code, type DataDir } from './files.js';

const HASH = /^[0-9a-f]{64}$/;

function requireHash(hash: unknown): string {
  if (typeof hash !== 'string' || !HASH.test(hash)) throw new InvalidInputError('Invalid hash: expected SHA-256 hex.');
  return hash;
}

/**
 * `console/sessions/<hash>.json` and `console/codes/<hash>.json`. A code is redeemed by renaming its file away
 * first: rename is atomic, so of any number of processes redeeming at once exactly one gets the file.
 */
export class LocalConsoleSessionStore implements ConsoleSessionStore {
  constructor(
    private readonly dir: DataDir,
    private readonly now: () => number,
  ) {}

  async createSession(session: ConsoleSession): Promise<void> {
    await this.dir.createJson(this.sessionPath(session.idHash), session, 'The console session');
  }

  async getSession(idHash: string): Promise<ConsoleSession | undefined> {
    if (typeof idHash !== 'string' || !HASH.test(idHash)) return undefined;
    const path = this.sessionPath(idHash);
    const session = await this.dir.readJson<ConsoleSession>(path);
    if (!session) return undefined;
    if (session.expiresAt <= this.now()) {
      await this.dir.remove(path);
      return undefined;
    }
    return session;
  }

  async deleteSession(idHash: string): Promise<void> {
    if (typeof idHash !== 'string' || !HASH.test(idHash)) return;
    await this.dir.remove(this.sessionPath(idHash));
  }

  async createLoginCode(loginCode: LoginCode): Promise<void> {
    await this.dir.createJson(this.codePath(loginCode.codeHash), loginCode, 'The login code');
  }

  async redeemLoginCode(codeHash: string): Promise<LoginCode | undefined> {
    if (typeof codeHash !== 'string' || !HASH.test(codeHash)) return undefined;
    const claimed = this.dir.tempPath();
    try {
      await fs.rename(this.codePath(codeHash), claimed);
    } catch (error) {
      if (code(error) === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const loginCode = await this.dir.readJson<LoginCode>(claimed);
      return loginCode && loginCode.expiresAt > this.now() ? loginCode : undefined;
    } finally {
      await this.dir.remove(claimed);
    }
  }

  private sessionPath(idHash: string): string {
    return this.dir.path('console', 'sessions', `${requireHash(idHash)}.json`);
  }

  private codePath(codeHash: string): string {
    return this.dir.path('console', 'codes', `${requireHash(codeHash)}.json`);
  }
}
