// The command table. Each command lives in its own module under ./commands/ and is loaded
// only when it runs (or for the full help), so `gpu-rent quote` never pays for ssh2.
import type { CliCommand } from './command';

type Loader = () => Promise<CliCommand>;

const core: Record<string, Loader> = {
  platforms: async () => (await import('./commands/platforms')).command,
  quote: async () => (await import('./commands/quote')).command,
  advise: async () => (await import('./commands/advise')).command,
  smi: async () => (await import('./commands/smi')).command,
  diagnose: async () => (await import('./commands/diagnose')).command,
  doctor: async () => (await import('./commands/doctor')).command,
  probe: async () => (await import('./commands/probe')).command,
  run: async () => (await import('./commands/run')).command,
  jobs: async () => (await import('./commands/jobs')).command,
  logs: async () => (await import('./commands/logs')).command,
  stop: async () => (await import('./commands/stop')).command,
  sync: async () => (await import('./commands/sync')).command,
  accounts: async () => (await import('./commands/accounts')).command,
  instances: async () => (await import('./commands/instances')).command,
  'power-on': async () => (await import('./commands/power')).powerOn,
  'power-off': async () => (await import('./commands/power')).powerOff,
  release: async () => (await import('./commands/power')).release,
  balance: async () => (await import('./commands/balance')).command,
  stock: async () => (await import('./commands/stock')).command,
  push: async () => (await import('./commands/push')).command,
  create: async () => (await import('./commands/create')).command,
  clone: async () => (await import('./commands/clone')).command,
  grab: async () => (await import('./commands/grab')).command,
  schedule: async () => (await import('./commands/schedule')).command,
  'shutdown-timer': async () => (await import('./commands/shutdown-timer')).command,
  launch: async () => (await import('./commands/launch')).command,
  runs: async () => (await import('./commands/runs')).command,
  notify: async () => (await import('./commands/notify')).command,
  storage: async () => (await import('./commands/storage')).command,
  forward: async () => (await import('./commands/forward')).command,
  mcp: async () => (await import('./commands/mcp')).command,
};

const guards = async (): Promise<CliCommand[]> => (await import('./guard-commands')).guardCommands;

/** Every command, in help order. Loads every module: use for help only. */
export async function allCommands(): Promise<CliCommand[]> {
  const first = await Promise.all(Object.values(core).map((load) => load()));
  return [...first, ...(await guards())];
}

/** The command named `name`, loading only what it needs; undefined when there is none. */
export async function findCommand(name: string): Promise<CliCommand | undefined> {
  const load = Object.hasOwn(core, name) ? core[name] : undefined;
  if (load) return load();
  return (await guards()).find((c) => c.name === name);
}
