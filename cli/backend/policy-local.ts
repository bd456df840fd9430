/** The policy calls of `login --local`, in-process (loaded on first use: see lazy-sub-backend.ts). */
import { UserError } from '../output/errors.js';
import type { PolicyBackend } from './policy-backend.js';

/** `login --local` keeps no packs or groups (Pulumi's DIY backend neither): every call says so. */
export function localPolicyBackend(): PolicyBackend {
  const refuse = async (): Promise<never> => {
    throw new UserError(
      'the local backend does not support resource policy',
      'Publish and enable policy packs on a stackyard service (`stackyard login <url>`); run a pack locally with `--policy-pack <dir>`.',
    );
  };
  return { listPacks: refuse, listGroups: refuse, publish: refuse, enable: refuse, disable: refuse, remove: refuse, schema: refuse, download: refuse };
}
