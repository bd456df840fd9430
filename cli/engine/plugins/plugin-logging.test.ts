import { describe, expect, it } from 'vitest';
import { pluginLoggingArgs } from './plugin-logging.js';

describe('--logflow arguments for plugins (Pulumi buildPluginArguments)', () => {
  it('hands on --logtostderr and -v=<level> only with --logflow, -v only when a level was given', () => {
    expect(pluginLoggingArgs({ verbosity: 3, toStderr: true, flow: false })).toEqual([]);
    expect(pluginLoggingArgs({ verbosity: 3, toStderr: true, flow: true })).toEqual(['--logtostderr', '-v=3']);
    expect(pluginLoggingArgs({ verbosity: 0, toStderr: true, flow: true })).toEqual(['--logtostderr']);
    expect(pluginLoggingArgs({ verbosity: 7, toStderr: false, flow: true })).toEqual(['-v=7']);
    expect(pluginLoggingArgs(undefined)).toEqual([]);
  });
});
