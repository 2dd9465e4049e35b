// The `Host` block Open in Remote-SSH writes for an instance (src/app/sshConfig places,
// checks and writes it). Pure.
import type { HostBlock } from '../app/sshConfig';
import type { Instance } from '../core/instances';

export function hostAlias(inst: Pick<Instance, 'id' | 'platform'>): string {
  return `gpu-rent-${inst.platform.replace(/[^A-Za-z0-9-]/g, '')}-${inst.id}`;
}

export function hostBlockOf(inst: Pick<Instance, 'id' | 'platform' | 'login'>): HostBlock {
  return { alias: hostAlias(inst), hostName: inst.login.host, port: inst.login.port, user: inst.login.user, ...(inst.login.keyPath ? { identityFile: inst.login.keyPath } : {}), serverAliveIntervalSeconds: 15 };
}
