// `gpu-rent power-on|power-off|release INSTANCE`: one power action through the platform's API,
// after showing the price per hour; then the state is read again until it settles (or the
// deadline) with each step on stderr. The action itself is sent once, never retried.
import { PLATFORM_NAMES, stillBillsLine } from '../../app/platforms/errors';
import { afterPowerOff, powerOffModeFor } from '../../core/platforms/billing';
import { TARGET, waitForState } from '../../app/platforms/settle';
import { formatCny } from '../../core/money';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { can, type Capability, type Connector, type PlatformInstance } from '../../core/platforms/types';
import { formatHelp, parseArgs, UsageError, type FlagSpecs } from '../args';
import type { CliCommand, CliIO } from '../command';
import { connectorFor, failureLine, HOW_TO_ADD, loadAccounts, type CliAccount } from './accounts';
import { join } from 'node:path';
import { configHome } from '../../app/platforms/accountFile';
import { acquireFileLock, powerLockKey } from '../../app/platforms/powerLock';
import { DEFAULT_WAIT_S, MAX_WAIT_S } from '../../core/platforms/gpuWait';
import { powerOnWhenFree } from './power-wait';

const specs = {
  account: { type: 'string', valueName: 'ID', description: 'the account the instance belongs to (when several could)' },
  'no-gpu': { type: 'boolean', description: 'power-on: start in no-GPU mode (AutoDL console token only)' },
  'stop-charging': { type: 'boolean', description: 'power-off on 阿里云/腾讯云: ask for economical mode (StopCharging / STOP_CHARGING: vCPU, memory and GPU stop billing; disks and public IP / EIP still bill). The default there' },
  'keep-charging': { type: 'boolean', description: 'power-off on 阿里云/腾讯云: keep-charging mode instead (compute keeps billing as if it ran; the instance keeps its resources)' },
  yes: { type: 'boolean', description: 'do it (without it, only the instance, its price per hour and the action are shown)' },
  wait: { type: 'number', valueName: 'SECONDS', integer: true, min: 0, max: MAX_WAIT_S, description: 'how long to wait for the state to settle (default 180, at most 1800; 0: do not wait); with --wait-for-gpu how long to wait for a free card (default 3600, at most 86400)' },
  'wait-for-gpu': { type: 'boolean', description: 'power-on: when the platform has no free card, try again (at most once every 15 s, backing off to every 5 minutes) until one is free, --wait runs out or Ctrl-C; other refusals (balance, real-name, quota, token) end it at once' },
  json: { type: 'boolean', description: 'print the final state as JSON' },
} satisfies FlagSpecs;

type Action = 'power-on' | 'power-off' | 'release';

async function find(io: CliIO, target: string, accountId: string | undefined): Promise<{ a: CliAccount; c: Connector; inst: PlatformInstance } | string> {
  const accounts = (await loadAccounts(io)).filter((a) => !accountId || a.account.id === accountId);
  if (!accounts.length) return accountId ? `no account ${accountId} (gpu-rent accounts list)` : HOW_TO_ADD.trimEnd();
  const errors: string[] = [];
  const hits: { a: CliAccount; c: Connector; inst: PlatformInstance }[] = [];
  await Promise.all(
    accounts.map(async (a) => {
      const c = connectorFor(a, io);
      try {
        for (const inst of await c.list()) if (inst.ref === target || inst.name === target) hits.push({ a, c, inst });
      } catch (e) {
        errors.push(`${a.account.id}: ${failureLine(e)}`);
      }
    }),
  );
  if (hits.length === 1) return hits[0]!;
  if (hits.length > 1) return `${forTerminal(target)} matches ${hits.length} instances (${hits.map((h) => `${h.a.account.id}/${h.inst.ref}`).join(', ')}): use the id and --account`;
  return errors.length ? errors.join('; ') : `no instance ${forTerminal(target)} on ${accounts.map((a) => a.account.id).join(', ')}`;
}

function makeCommand(action: Action): CliCommand {
  const usage = `gpu-rent ${action} INSTANCE [--account ID]${action === 'power-on' ? ' [--no-gpu | --wait-for-gpu [--wait SECONDS]]' : action === 'power-off' ? ' [--keep-charging]' : ''} [--yes]`;
  const summary = {
    'power-on': 'start an instance through its platform (GPU, or no-GPU mode where offered)',
    'power-off': 'shut an instance down through its platform; on 阿里云/腾讯云 in economical mode (StopCharging), read back, saying what still bills',
    release: 'release (delete) an instance through its platform: its disks are deleted',
  }[action];
  return {
    name: action,
    summary,
    help: () => formatHelp(usage, `${summary.charAt(0).toUpperCase()}${summary.slice(1)}. INSTANCE is the platform's id or the instance's name. Shows the price per hour first; acts only with --yes, on accounts with power actions allowed.`, specs),
    run: async (argv, io) => {
      const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'INSTANCE' });
      const target = positionals[0];
      if (!target) throw new UsageError('expects INSTANCE (gpu-rent instances lists them)');
      if (flags['no-gpu'] && action !== 'power-on') throw new UsageError('--no-gpu is for power-on');
      if (flags['stop-charging'] && action !== 'power-off') throw new UsageError('--stop-charging is for power-off');
      if (flags['keep-charging'] && action !== 'power-off') throw new UsageError('--keep-charging is for power-off');
      if (flags['keep-charging'] && flags['stop-charging']) throw new UsageError('--keep-charging and --stop-charging exclude each other');
      if (flags['wait-for-gpu'] && action !== 'power-on') throw new UsageError('--wait-for-gpu is for power-on');
      if (flags['wait-for-gpu'] && flags['no-gpu']) throw new UsageError('--wait-for-gpu waits for a card; a no-GPU start needs none');
      if (!flags['wait-for-gpu'] && (flags.wait ?? 0) > 1800) throw new UsageError('--wait: at most 1800 seconds to settle (longer waits are for --wait-for-gpu)');
      const found = await find(io, target, flags.account);
      if (typeof found === 'string') {
        io.stderr(`gpu-rent ${action}: ${found}\n`);
        return 1;
      }
      const { a, c, inst } = found;
      const offMode = powerOffModeFor(a.account.kind, flags['keep-charging'] === true);
      const cap: Capability = action === 'power-on' ? (flags['no-gpu'] ? 'powerOn:noGpu' : 'powerOn:gpu') : action === 'power-off' ? (flags['stop-charging'] || offMode === 'stopCharging' ? 'powerOff:stopCharging' : 'powerOff:keep') : 'release';
      const name = PLATFORM_NAMES[a.account.kind];
      if (!can(a.account.kind, cap)) {
        io.stderr(`gpu-rent ${action}: ${name} offers no ${cap} through its API; do it in the platform's console\n`);
        return 1;
      }
      if (!a.account.powerActions) {
        io.stderr(`gpu-rent ${action}: account ${a.account.id} is read-only (${a.source === 'env' ? 'set GPU_RENT_ALLOW_POWER=1' : 'add it again with --allow-power'})\n`);
        return 1;
      }
      let price = inst.priceFenPerHour;
      if (price === undefined && can(a.account.kind, 'price')) price = await c.price(inst.ref).then((p) => p?.fenPerHour, () => undefined);
      const priceText = price !== undefined ? `${formatCny(price)}/h` : 'price per hour not shown by the platform now';
      const what = action === 'power-on' ? (flags['no-gpu'] ? 'start in no-GPU mode' : 'start with its GPUs') : action === 'power-off' ? (cap === 'powerOff:stopCharging' ? 'shut down in economical mode (StopCharging: compute stops billing where the platform applies it; disks and public IP / EIP still bill)' : a.account.kind === 'aliyun-ecs' || a.account.kind === 'tencent-cvm' ? 'shut down in KEEP-CHARGING mode (compute keeps billing as if it ran)' : 'shut down (compute stops billing; a paid data disk still bills)') : 'RELEASE: its disks and everything on them are deleted';
      // The platform's words (name, state) are box text.
      io.stderr(`${forTerminal(inst.name)} (${a.account.id}/${forTerminal(inst.ref)}, ${forTerminal(inst.rawState || inst.state)}) on ${name}: ${what}; ${priceText}\n`);
      if (!flags.yes) {
        io.stderr(`gpu-rent ${action}: nothing done; add --yes to proceed\n`);
        return 2;
      }
      if (flags['wait-for-gpu']) return powerOnWhenFree(io, a, c, inst, { waitS: flags.wait ?? DEFAULT_WAIT_S, json: flags.json === true });
      // Never two power-ons in flight for one instance (a --wait-for-gpu in another shell holds this lock).
      const lock = action === 'power-on' ? acquireFileLock(join(configHome(io.env), 'locks'), powerLockKey(a.account.id, inst.ref), 'power-on') : undefined;
      if (lock && 'busy' in lock) {
        io.stderr(`gpu-rent ${action}: another gpu-rent${lock.busy.pid ? ` (pid ${lock.busy.pid}, ${forTerminal(lock.busy.what)})` : ''} is powering on ${forTerminal(inst.name)} now: nothing sent\n`);
        return 1;
      }
      try {
        if (action === 'power-on') await c.powerOn(inst.ref, flags['no-gpu'] ? 'noGpu' : 'gpu');
        else if (action === 'power-off') await c.powerOff(inst.ref, cap === 'powerOff:stopCharging' ? 'stopCharging' : 'keep');
        else await c.release(inst.ref);
      } catch (e) {
        io.stderr(`gpu-rent ${action}: ${failureLine(e)}\n`);
        return 1;
      } finally {
        if (lock && 'release' in lock) lock.release();
      }
      const targets = action === 'power-on' ? (flags['no-gpu'] ? TARGET.powerOnNoGpu : TARGET.powerOnGpu) : action === 'power-off' ? TARGET.powerOff : TARGET.release;
      const waitS = flags.wait ?? 180;
      let last = inst.state as string;
      const r = waitS === 0 ? { settled: false } : await waitForState(c, inst.ref, targets, { deadlineMs: waitS * 1000, intervalMs: Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) > 0 ? Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS) : 3000, onProgress: (p) => p.state !== last && io.stderr(`  ${(last = p.state)}\n`) }).catch((e: unknown) => ({ settled: false, error: failureLine(e) }));
      if ('error' in r) io.stderr(`gpu-rent ${action}: sent, but the state could not be read: ${r.error as string}\n`);
      const final = 'last' in r ? r.last : undefined;
      let login: unknown;
      if (action === 'power-on' && r.settled && can(a.account.kind, 'sshLogin')) {
        const l = await c.sshLogin(inst.ref).catch(() => undefined);
        if (l) {
          login = { host: l.host, port: l.port, user: l.user, passwordChanged: l.password !== undefined };
          io.stderr(`  ssh -p ${l.port} ${forTerminal(l.user)}@${forTerminal(l.host)}${l.password ? ' (the password is shown in the platform console)' : ''}\n`);
        }
      }
      // Not reached: say loudly that it still bills (a platform may accept a stop and do nothing).
      if (action !== 'power-on' && !r.settled && waitS > 0) io.stderr(forTerminal(`gpu-rent ${action}: ${inst.name} did NOT ${action === 'release' ? 'release' : 'power off'} and keeps billing ${priceText}: the platform accepted it but reports "${final?.rawState || final?.state || 'unknown'}" after ${waitS} s. Check it in the platform's console`) + '\n');
      // Read back what the platform applied, and say what still bills.
      const billing = action === 'power-off' && r.settled && final ? afterPowerOff(a.account.kind, cap === 'powerOff:stopCharging' ? 'stopCharging' : 'keep', { ...final, billing: final.billing ?? inst.billing }) : undefined;
      if (billing) io.stderr(`  ${stillBillsLine(a.account.kind, billing, priceText)}\n`);
      if (flags.json) io.stdout(jsonForTerminal({ account: a.account.id, ref: inst.ref, action, settled: r.settled, state: final?.state ?? null, ...(billing ? { stillBills: { compute: billing.compute, disks: billing.disks, publicIp: billing.publicIp, economicalModeRefused: billing.refused } } : {}), ...(login ? { login } : {}) }, 2) + '\n');
      else io.stdout(`${forTerminal(inst.ref)}: ${r.settled ? (final?.state ?? 'done') : waitS === 0 ? 'sent' : `not settled after ${waitS}s (last: ${final?.state ?? 'unknown'})`}\n`);
      return r.settled || waitS === 0 ? 0 : 1;
    },
  };
}

export const powerOn = makeCommand('power-on');
export const powerOff = makeCommand('power-off');
export const release = makeCommand('release');
