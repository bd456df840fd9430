import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../output/errors.js';
import { serveSettings } from './serve-run.js';

describe('serveSettings', () => {
  it('defaults to local storage in ~/.stackyard/serve on 127.0.0.1:8080', () => {
    expect(serveSettings({}, {})).toEqual({ storage: 'local', dataDir: join(homedir(), '.stackyard', 'serve'), port: 8080, host: '127.0.0.1' });
  });

  it('puts the data folder under STACKYARD_HOME, and lets flags win', () => {
    expect(serveSettings({}, { STACKYARD_HOME: '/srv/sy' }).dataDir).toBe(join('/srv/sy', 'serve'));
    expect(serveSettings({ port: 0, host: '0.0.0.0', dataDir: '/data' }, { STACKYARD_HOME: '/srv/sy', STACKYARD_STORAGE: 'AWS' })).toEqual({
      storage: 'aws',
      dataDir: '/data',
      port: 0,
      host: '0.0.0.0',
    });
  });

  it('refuses an unknown storage mode', () => {
    expect(() => serveSettings({}, { STACKYARD_STORAGE: 's3' })).toThrow(UserError);
  });
});
