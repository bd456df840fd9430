/**
 * `RegisterPackage`: a program names a provider package once (plugin, version, download URL and, for a
 * parameterized provider, the sub-package and its parameter value) and gets a reference its resources, reads,
 * invokes, components and method calls carry as `packageRef` instead (Pulumi's `resmon.RegisterPackage` and
 * `lookupPackageRef`). Registering the same package again gives the same reference.
 */
import { randomUUID } from 'node:crypto';
import semver from 'semver';
import type { PackageRequest } from '../plugins/providers/parameterized.js';
import { resproto } from '../rpc/proto.js';

type RegisterPackageRequest = InstanceType<typeof resproto.RegisterPackageRequest>;

/** A version as Go's `semver.Parse` takes it (strict: no leading `v`), or an error naming what it is for. */
function strictVersion(text: string, what: string): string {
  if (text.startsWith('v') || !semver.valid(text)) throw new Error(`parse ${what} version ${text}: not a semantic version`);
  return text;
}

function requestOf(req: RegisterPackageRequest): PackageRequest {
  const name = req.getName();
  if (!name) throw new Error('package name is empty');
  if (req.hasExtension$()) {
    throw new Error(`package ${name} asks for an extension parameterization, which this engine does not support yet; use a replacement parameterization`);
  }
  const out: PackageRequest = { name };
  if (req.getVersion()) out.version = strictVersion(req.getVersion(), 'package');
  const url = req.getDownloadUrl().replace(/\/+$/, '');
  if (url) out.pluginDownloadURL = url;
  const p = req.getParameterization();
  if (p) out.parameterization = { name: p.getName(), version: strictVersion(p.getVersion(), 'parameter'), value: p.getValue_asU8() };
  return out;
}

/** The identity of a package request: equal requests share one reference. */
function identity(r: PackageRequest): string {
  const p = r.parameterization;
  return JSON.stringify([r.name, r.version ?? '', r.pluginDownloadURL ?? '', p ? [p.name, p.version, Buffer.from(p.value).toString('base64')] : null]);
}

/** The packages a program registered this run, by reference. */
export class PackageRefs {
  private readonly byRef = new Map<string, PackageRequest>();
  private readonly refOf = new Map<string, string>();

  /** Registers a package; the same package registered again answers the same reference. */
  register(req: RegisterPackageRequest): InstanceType<typeof resproto.RegisterPackageResponse> {
    const request = requestOf(req);
    const key = identity(request);
    let ref = this.refOf.get(key);
    if (!ref) {
      ref = randomUUID();
      this.refOf.set(key, ref);
      this.byRef.set(ref, request);
    }
    return new resproto.RegisterPackageResponse().setRef(ref);
  }

  /** The package a request's `packageRef` stands for; none for an empty reference, an error for an unknown one. */
  resolve(ref: string): PackageRequest | undefined {
    if (!ref) return undefined;
    const request = this.byRef.get(ref);
    if (!request) throw new Error(`unknown provider package '${ref}'`);
    return request;
  }
}
