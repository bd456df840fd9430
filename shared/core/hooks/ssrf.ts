import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard for HTTPS destinations. A hook URL is operator-supplied text that our servers (inside the
 * operator's VPC or next to the instance metadata service) would request, so every address a host resolves to is
 * checked, and the request then connects to exactly the address that was checked (no second DNS answer can point
 * it elsewhere: DNS rebinding). Refused unless `allowPrivate`: loopback, private, carrier-grade NAT, link-local
 * (including 169.254.169.254, the metadata service), unique-local IPv6 (fc00::/7, including AWS's fd00:ec2::254),
 * multicast, reserved and unspecified addresses; IPv4-mapped and NAT64 IPv6 forms are judged by their IPv4 part.
 */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address, if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True when `address` (an IP literal) is one a hook may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner !== undefined) return blocked.check(inner, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

/**
 * Whether hook deliveries (and everything else the service sends to a URL a user gave) may reach private and loopback
 * addresses: off unless the operator says so, in the runtime options or STACKYARD_HOOKS_ALLOW_PRIVATE=true.
 */
export function privateTargetsAllowed(options: { allowPrivate?: boolean } = {}, env: NodeJS.ProcessEnv = process.env): boolean {
  return options.allowPrivate ?? env.STACKYARD_HOOKS_ALLOW_PRIVATE === 'true';
}

export class ForbiddenDestinationError extends Error {}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/** Resolves `host` and returns the address to connect to, or throws `ForbiddenDestinationError`. */
export async function resolveAllowedTarget(host: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const literal = isIP(bare);
  const addresses = literal
    ? [{ address: bare, family: literal }]
    : await (await import('node:dns/promises')).lookup(bare, { all: true, verbatim: true }).catch((error: NodeJS.ErrnoException) => {
        throw new ForbiddenDestinationError(`cannot resolve ${bare} (${error.code ?? error.message})`);
      });
  if (addresses.length === 0) throw new ForbiddenDestinationError(`${bare} has no address`);
  if (!allowPrivate) {
    // Every answer is checked, not just the one we would pick: a host with one public and one private address is
    // refused as a whole.
    const bad = addresses.find((entry) => isForbiddenAddress(entry.address));
    if (bad) {
      throw new ForbiddenDestinationError(
        `${bare} resolves to ${bad.address}, a private, loopback, link-local or otherwise internal address; ` +
          `hooks may only call public addresses (operators can allow internal ones with STACKYARD_HOOKS_ALLOW_PRIVATE=true)`,
      );
    }
  }
  const chosen = addresses[0]!;
  return { address: chosen.address, family: chosen.family === 6 ? 6 : 4 };
}
