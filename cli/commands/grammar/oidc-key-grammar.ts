/** `admin oidc-key`: the environments' OIDC issuer signing keys (listing and rotation, administrators). */
import type { Command } from 'commander';
import { JSON_FLAG, group, leaf } from './tree.js';

const commands = () => import('../oidc-key.js');

/** Declares `admin oidc-key ls|rotate` under the `admin` group. */
export function registerOidcKeyGrammar(adminCmd: Command): void {
  group(adminCmd, 'oidc-key', "The environments' OIDC issuer signing keys (administrators)", (oidcKey) => {
    leaf(oidcKey, 'ls', 'List the signing keys that may still matter and their states', [JSON_FLAG], async () => (await commands()).adminOidcKeyLs);
    leaf(oidcKey, 'rotate', 'Make the next signing key: published now, signing after the key-set cache time', [JSON_FLAG], async () => (await commands()).adminOidcKeyRotate);
  });
}
