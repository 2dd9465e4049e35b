// A `Host` entry for Remote-SSH, written into ~/.ssh/config between markers so it is replaced,
// not duplicated, when the login changes after a restart. Pure (unit-tested).
import type { Instance, Login } from '../core/instances';

export function hostAlias(inst: Pick<Instance, 'id' | 'platform'>): string {
  return `gpu-rent-${inst.platform.replace(/[^A-Za-z0-9-]/g, '')}-${inst.id}`;
}

const begin = (alias: string) => `# >>> ${alias} (managed by GPU Rent)`;
const end = (alias: string) => `# <<< ${alias}`;

function quoteValue(v: string): string {
  return /^[A-Za-z0-9._\-/~@:+]+$/.test(v) ? v : `"${v.replace(/["\\]/g, '')}"`;
}

export function hostEntry(alias: string, login: Login): string {
  const lines = [begin(alias), `Host ${alias}`, `  HostName ${quoteValue(login.host)}`, `  Port ${login.port}`, `  User ${quoteValue(login.user)}`, '  ServerAliveInterval 15'];
  if (login.keyPath) lines.push(`  IdentityFile ${quoteValue(login.keyPath)}`, '  IdentitiesOnly yes');
  lines.push(end(alias));
  return lines.join('\n') + '\n';
}

/** The config text with the alias's managed block replaced (or appended). Other text is kept byte for byte. */
export function upsertHostEntry(config: string, alias: string, login: Login): string {
  const entry = hostEntry(alias, login);
  const start = config.indexOf(begin(alias) + '\n');
  if (start !== -1) {
    const stop = config.indexOf(end(alias), start);
    if (stop !== -1) {
      const after = config.indexOf('\n', stop);
      return config.slice(0, start) + entry + (after === -1 ? '' : config.slice(after + 1));
    }
  }
  const sep = config === '' || config.endsWith('\n\n') ? '' : config.endsWith('\n') ? '\n' : '\n\n';
  return config + sep + entry;
}
