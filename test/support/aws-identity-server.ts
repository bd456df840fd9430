import { fileURLToPath } from 'node:url';
import { CONFIG_PATH, type AwsIdentityStandInConfig } from './aws-identity-protocol-server.js';
import { spawnReadyChild, stopChild, tsxNodeArgs } from './processes.js';

/** A running STS + Secrets Manager + SSM stand-in process (aws-identity-protocol-server.ts). */
export interface AwsIdentityStandIn {
  endpoint: string;
  /** AWS_ENDPOINT_URL_STS/_SECRETS_MANAGER/_SSM at the stand-in, for the service's environment. */
  env: Record<string, string>;
  /** Replaces the roles, secrets and parameters. */
  configure(config: AwsIdentityStandInConfig): Promise<void>;
  stop(): Promise<void>;
}

const SERVER = fileURLToPath(new URL('./aws-identity-protocol-server.ts', import.meta.url));

/** Starts the stand-in as a separate node process on a free port, with these roles, secrets and parameters. */
export async function startAwsIdentityStandIn(config: AwsIdentityStandInConfig): Promise<AwsIdentityStandIn> {
  const { child, port } = await spawnReadyChild('AWS identity stand-in', process.execPath, [...tsxNodeArgs(), SERVER], {
    env: { ...process.env, PORT: '0', STACKYARD_AWS_STAND_IN: JSON.stringify(config) },
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    env: { AWS_ENDPOINT_URL_STS: endpoint, AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint, AWS_ENDPOINT_URL_SSM: endpoint },
    async configure(config) {
      const response = await fetch(`${endpoint}${CONFIG_PATH}`, { method: 'PUT', body: JSON.stringify(config) });
      if (response.status !== 204) throw new Error(`The AWS identity stand-in refused its configuration: ${response.status}`);
    },
    stop: () => stopChild(child),
  };
}
