// The rows under an instance in the Instances view: the last probe's GPUs, the jobs with their
// progress, the checkpoint folder. Pure (l10n passed in, no `vscode`), so their words are tested
// in Node; the tree wraps each in a TreeItem. Box text (GPU names, job ids and commands, sync
// errors) is returned as it is: the tree renders it with forLabel / forTerminal.
import type { Instance } from '../../core/instances';
import { burnRateFenPerHour } from '../../core/spend';
import type { RunWatch } from '../../app/runs/watch';
import type { ConnectionState } from '../../app/pool';
import type { LiveGpus } from '../../app/runs/liveGpus';
import { progressText } from './runText';
import { formatDuration, type L10n } from './present';

const GIB = 1024 ** 3;

export interface DetailRow {
  /** `gpu:<index>`, `gpu:none`, `job:<id>` or `sync`. */
  key: string;
  label: string;
  description?: string;
  /** A codicon id. */
  icon: string;
  tooltip?: string;
  /** The row's click: Check GPU on the instance, or Jobs and Logs on the row itself (`onRow`). */
  command?: { command: 'checkGpu' | 'showJobs'; title: string; onRow: boolean };
}

export interface RowFacts {
  now: number;
  /** The running jobs' progress (the runs model). */
  runs: Pick<RunWatch, 'get' | 'finish' | 'lastSeen'>;
  /** The instance's checkpoints are being watched. */
  watching: boolean;
  /** The GPU monitor's latest readings (newer than the last check: shown instead). */
  live?: Pick<LiveGpus, 'latest'>;
}

/** A figure this old or younger reads as live; older ones say their age. */
export const LIVE_SECONDS = 15;
const MIB = 1024 * 1024;

export function detailRows(inst: Instance, f: RowFacts, l10n: L10n): DetailRow[] {
  return [...gpuRows(inst, f, l10n), ...(inst.jobs ?? []).map((j) => jobRow(inst, j, f, l10n)), ...(inst.sync ? [syncRow(inst.sync, f, l10n)] : [])];
}

function gpuRows(inst: Instance, f: RowFacts, l10n: L10n): DetailRow[] {
  const probe = inst.lastProbe;
  if (!probe || probe.gpus.length === 0) {
    return [{ key: 'gpu:none', label: probe ? l10n.t('No GPU visible in the last probe') : l10n.t('Not checked yet'), icon: probe ? 'warning' : 'question', command: { command: 'checkGpu', title: l10n.t('Check GPU'), onRow: false } }];
  }
  const live = f.live?.latest(inst.id);
  return probe.gpus.map((g) => {
    // The monitor's reading when it is newer than the check's; either way the figure says how old it is.
    const m = live?.get(g.index);
    const fromMonitor = m !== undefined && m.t > probe.at;
    const used = fromMonitor ? (m.memUsed !== null ? m.memUsed * MIB : undefined) : g.memoryUsedBytes;
    const total = fromMonitor ? (m.memTotal !== null ? m.memTotal * MIB : g.memoryTotalBytes) : g.memoryTotalBytes;
    const pct = fromMonitor ? (m.util ?? undefined) : g.utilizationPct;
    const ageSeconds = Math.max(0, f.now - (fromMonitor ? m.t : probe.at));
    const age = formatDuration(ageSeconds, l10n);
    const mem = total !== undefined ? `${((used ?? 0) / GIB).toFixed(1)} / ${(total / GIB).toFixed(1)} GiB` : '';
    const util = pct !== undefined ? `${Math.round(pct)}%` : '';
    const when = ageSeconds <= LIVE_SECONDS ? l10n.t('live') : l10n.t('{0} ago', age);
    const tooltip = fromMonitor ? l10n.t('From the GPU monitor {0} ago', age) : l10n.t('Probed {0} ago', age);
    return { key: `gpu:${g.index}`, label: `GPU ${g.index}: ${g.name}`, description: [mem, util, when].filter(Boolean).join(' · '), icon: 'circuit-board', tooltip };
  });
}

function jobRow(inst: Instance, j: NonNullable<Instance['jobs']>[number], f: RowFacts, l10n: L10n): DetailRow {
  const exited = j.state === 'exited';
  const status = exited ? (j.exitCode === 0 ? l10n.t('finished') : l10n.t('exited with {0}', String(j.exitCode ?? '?'))) : j.state === 'running' ? l10n.t('running') : '';
  const icon = exited ? (j.exitCode === 0 ? 'pass' : 'error') : 'run';
  const when = exited && j.endedAt ? l10n.t('ended {0} ago', formatDuration(Math.max(0, f.now - j.endedAt), l10n)) : l10n.t('started {0} ago', formatDuration(Math.max(0, f.now - j.startedAt), l10n));
  const run = !exited ? f.runs.get(inst.id, j.id) : undefined;
  // A diverged run burns the instance's whole rate (the spend code's burn rate) for nothing.
  const burning = run?.progress.diverged ? burnRateFenPerHour(inst.intervals) : null;
  const progress = run ? progressText(run.progress, f.runs.finish(run, f.now), l10n, undefined, f.runs.lastSeen(run, f.now), burning) : '';
  const diverged = !!run?.progress.diverged;
  return {
    key: `job:${j.id}`,
    label: j.id,
    description: [progress || status, j.command].filter(Boolean).join(' · '),
    icon: diverged ? 'warning' : icon,
    tooltip: [j.command, when, progress, diverged ? l10n.t('The training loss is not a number: the run has diverged and every hour from here is paid for nothing.') : ''].filter(Boolean).join('\n'),
    command: { command: 'showJobs', title: l10n.t('Jobs and Logs'), onRow: true },
  };
}

function syncRow(sync: NonNullable<Instance['sync']>, f: RowFacts, l10n: L10n): DetailRow {
  const when = sync.lastSyncAt ? l10n.t('synced {0} ago', formatDuration(f.now - sync.lastSyncAt, l10n)) : l10n.t('never synced');
  const pending = sync.unsynced ? l10n.t('{0} not yet copied', sync.unsynced) : '';
  return { key: 'sync', label: l10n.t('Checkpoints'), description: [when, pending, f.watching ? l10n.t('watching') : ''].filter(Boolean).join(' · '), icon: sync.lastError ? 'error' : 'sync', tooltip: [`${sync.remoteDir} → ${sync.localDir}`, sync.lastError].filter(Boolean).join('\n') };
}

/**
 * The instance row's link words: a refused login, a box that does not answer (stopped, or a new
 * port after a restart) and a dropped link are three different things to do, never one
 * "connection lost". Empty when connected or never connected.
 */
export function connectionText(state: ConnectionState | undefined, l10n: L10n): string {
  switch (state) {
    case 'connecting':
      return l10n.t('connecting…');
    case 'reconnecting':
      return l10n.t('reconnecting…');
    case 'lost':
      return l10n.t('connection lost');
    case 'refused':
      return l10n.t('login refused (new password?)');
    case 'unreachable':
      return l10n.t('not answering (stopped, or a new port?)');
    default:
      return '';
  }
}
