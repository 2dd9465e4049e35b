// One launch, written once for both front ends: from a task to a finished, synced run with the
// meter off. Steps, each saved to the launch state before the next begins (so a killed CLI, a
// laptop that slept or a restarted VS Code continues with `--resume` where it stopped):
//   acquire → check (the doctor: a red verdict stops before hours are paid) → push (workdir as
//   git sees it, secret-scanned; data) → setup (a detached job: survives a dropped link) → run
//   (detached; the resume command from the last verified checkpoint after an interruption) →
//   watch (progress, ETA, ¥ to finish; a verified checkpoint sync every interval; the smoke
//   stop; the budget cap; a reclaimed spot box: relaunch on the next candidate) → end (the
//   final verified sync, then the end action; a failed sync stops any power action).
import { createHash } from 'node:crypto';
import { join, posix, resolve } from 'node:path';
import { formatCny, type Fen } from '../../core/money';
import { powerOffModeFor } from '../../core/platforms/billing';
import { estimateFinish, type RunPrice } from '../../core/progress';
import { checkBudget, LAUNCH_STEPS, newLaunchState, nextCandidate, smokeReached, spentFen, withEvent, type LaunchBox, type LaunchOutcome, type LaunchPhase, type LaunchState } from '../../core/task/launch';
import type { Task } from '../../core/task/types';
import type { ConnectOptions } from '../../remote/connect-options';
import type { RemoteConnection } from '../../remote/connection';
import { isRemoteError } from '../../remote/errors';
import { listJobs, startJob, stopJob, type JobInfo } from '../../remote/jobs';
import { shQuote } from '../../remote/shell';
import { syncOnce } from '../../remote/sync';
import { knownHostsName } from '../../remote/target';
import { sleep } from '../../remote/util/sleep';
import { PowerOnLocks } from '../platforms/powerLock';
import { TARGET, waitForState } from '../platforms/settle';
import { SshPool } from '../pool';
import { probeInstance, verdictLevel } from '../probe';
import { pushFolder } from '../push';
import { LogTail } from '../runs/logTail';
import { multiNodeJobs, splitCommand, startMultiNode, stopMultiNode, type RunNode } from '../runs/multinode';
import { runEndAction, syncOutcomeOf, type EndActionResult, type PowerActions } from '../runs/endAction';
import { boxPowerOffCommand, powerOffFromBox, probeBoxPower } from '../runs/boxPower';
import { syncRemote } from '../sync';
import { acquireBox, AcquireError, platformStateOf, reacquireBox, type AcquiredBox, type LaunchAccount } from './boxes';
import { lockLaunch, readState, statePath, writeState } from './store';
import { newestCheckpoint, workdirExclusions } from './workdir';
import { readSpotNotice } from './spotNotice';
import type { Instance } from '../../core/instances';
import type { EndAction } from '../../core/progress';
import { builtinCatalog, dating, formatDating, type Catalog } from '../../core/catalog';
import { quoteTask } from '../../core/task/quote';

export interface LaunchHost {
  configHome: string;
  /** How to connect (known hosts, keys, trust prompts, the password for an SSH login). */
  connectOptions(box: AcquiredBox): ConnectOptions;
  accounts(): Promise<LaunchAccount[]>;
  /** Every step and event as it happens, with the state after it. */
  onEvent?(line: string, state: LaunchState): void;
  /** Asked before a create (unless `yes`): true = create. */
  confirmCreate?(what: string): Promise<boolean>;
  /** Asked before a release (unless `yes`): true = release. */
  confirmRelease?(label: string): Promise<boolean>;
  signal?: AbortSignal;
  /** Seconds. */
  now?(): number;
  /** Watch loop period (default 5000 ms); tests lower it. */
  pollMs?: number;
  /** Waiting for a card / for a platform state (defaults 3600 s / 300 s). */
  waitForGpuMs?: number;
  settleMs?: number;
  settleIntervalMs?: number;
  /** Seconds the box's SSH port may stay up after a power-off from the box (default 120). */
  powerVerifySeconds?: number;
  /** Where a spot box's metadata service answers (default 阿里云's 100.100.100.200); tests point it at a local server. */
  spotMetadataHost?: string;
}

export interface LaunchOptions {
  /** The task file, absolute; the workdir and local folders are relative to its folder. */
  file: string;
  task: Task;
  smoke: boolean;
  /** Continue the launch in progress (required when one is). */
  resume: boolean;
  /** Create and release without asking (instance: new, end: release). */
  yes: boolean;
  /** The price catalog the quote reads (default the built-in one). */
  catalog?: Catalog;
}

export class LaunchError extends Error {
  constructor(
    readonly code: 'inProgress' | 'busy' | 'nothingToResume' | 'taskChanged',
    message: string,
  ) {
    super(message);
  }
}

/** A progress line goes to the front end at most this often (the state has every reading). */
const PROGRESS_LINE_SECONDS = 30;

const TERMINAL: ReadonlySet<LaunchPhase> = new Set(['done', 'stopped', 'failed']);
export const isFinished = (s: LaunchState) => TERMINAL.has(s.phase);

export function taskDigest(task: Task): string {
  return createHash('sha256').update(JSON.stringify(task)).digest('hex').slice(0, 32);
}

/** The pool entry of a launch's box: its account and id (a platform instance) and its endpoint. */
const poolKey = (box: AcquiredBox) => `launch:${box.account ?? ''}/${box.ref ?? ''}@${knownHostsName(box.target.host, box.target.port)}`;

const errText = (e: unknown) => (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 600);

interface Live {
  box: AcquiredBox;
  conn: RemoteConnection;
  home: string;
  remoteWorkdir: string;
  remoteCheckpoints?: string;
}

/** The remote path with ~/ made absolute against the box's home. */
function onBox(p: string, home: string, base?: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return posix.join(home, p.slice(2));
  if (p.startsWith('/')) return posix.normalize(p);
  return posix.join(base ?? home, p);
}

/** The end action the task's `end` stands for (checkpoints: always the final verified sync first). */
function endActionOf(task: Task): EndAction {
  if (task.end === 'no-gpu') return 'sync-then-no-gpu';
  if (task.end === 'power-off') return 'sync-then-power-off';
  return task.checkpoints ? 'sync' : 'nothing';
}

export async function launchTask(o: LaunchOptions, host: LaunchHost): Promise<LaunchState> {
  const now = host.now ?? (() => Date.now() / 1000);
  const task = o.task;
  const path = statePath(host.configHome, o.file, task.name);
  const lock = lockLaunch(path);
  if ('busy' in lock) throw new LaunchError('busy', `another gpu-rent (pid ${lock.busy.pid}) is driving the launch of ${task.name} now`);
  const pool = new SshPool();
  const locks = new PowerOnLocks();
  const digest = taskDigest(task);
  let s: LaunchState;
  try {
    const earlier = await readState(path);
    if (earlier && !isFinished(earlier)) {
      if (!o.resume) throw new LaunchError('inProgress', `a launch of ${task.name} is in progress (${earlier.phase}${earlier.box ? ` on ${earlier.box.label}` : ''}): continue it with --resume, or see it with --status`);
      if (earlier.taskDigest !== digest && earlier.phase !== 'acquire') {
        s = withEvent(earlier, now(), 'the task file changed since this launch started; continuing with the new one');
      } else s = earlier;
    } else if (o.resume) {
      throw new LaunchError('nothingToResume', earlier ? `the launch of ${task.name} has ended (${earlier.outcome?.kind ?? earlier.phase}); start it again without --resume` : `no launch of ${task.name} to resume`);
    } else s = newLaunchState({ task: task.name, file: o.file, taskDigest: digest, smoke: o.smoke, now: now() });
    s = { ...s, taskDigest: digest };
    const accounts = await host.accounts();
    const ctx = new Run(o, host, s, path, pool, locks, accounts, now);
    await ctx.save(o.resume ? `resumed at ${ctx.s.phase}` : `launch of ${task.name}${o.smoke ? ' (smoke test)' : ''} started`);
    await ctx.drive();
    return ctx.s;
  } finally {
    pool.dispose();
    lock.release();
  }
}

class Run {
  private live: Live | undefined;
  /** A multi-node run's other nodes, rank 1…N-1 (`live` is rank 0). */
  private others: Live[] = [];
  private tail: LogTail | undefined;
  private lastSyncAt = 0;
  private unreachableSince: number | undefined;
  private lastLineAt = 0;
  /** Whether the box has a spot notice service worth asking (false once it answers nothing). */
  private spotService = true;

  constructor(
    private readonly o: LaunchOptions,
    private readonly host: LaunchHost,
    public s: LaunchState,
    private readonly path: string,
    private readonly pool: SshPool,
    private readonly locks: PowerOnLocks,
    private readonly accounts: LaunchAccount[],
    private readonly now: () => number,
  ) {}

  private get task(): Task {
    return this.o.task;
  }

  private get base(): string {
    return resolve(this.o.file, '..');
  }

  async save(line?: string, patch: Partial<LaunchState> = {}): Promise<void> {
    this.s = { ...this.s, ...patch, updatedAt: this.now() };
    if (line) this.s = withEvent(this.s, this.now(), line);
    await writeState(this.path, this.s);
    if (line) this.host.onEvent?.(line, this.s);
  }

  /** The next step; its line says what the boxes have cost so far. */
  private async phase(p: LaunchPhase, line?: string): Promise<void> {
    const spent = spentFen(this.s, this.now());
    await this.save(line && this.s.box ? `${line} · spent ${spent.unknown ? '?' : formatCny(spent.fen)}` : line, { phase: p });
  }

  private async finish(kind: LaunchOutcome, detail: string, exitCode?: number | null): Promise<void> {
    const phase: LaunchPhase = kind === 'finished' || kind === 'smoke' ? 'done' : kind === 'budget' || kind === 'doctor' ? 'stopped' : 'failed';
    const spent = spentFen(this.s, this.now());
    await this.save(`${phase}: ${detail} · spent ${spent.unknown ? '?' : formatCny(spent.fen)}`, { phase, outcome: { kind, detail: detail.slice(0, 2000), ...(exitCode !== undefined ? { exitCode } : {}) }, ...(this.s.box ? { box: { ...this.s.box, leftAt: this.s.box.leftAt ?? this.now(), leftBecause: this.s.box.leftBecause ?? 'ended' } } : {}), ...(this.s.nodes ? { nodes: this.s.nodes.map((n) => ({ ...n, leftAt: n.leftAt ?? this.now(), leftBecause: n.leftBecause ?? 'ended' })) } : {}) });
  }

  private get all(): Live[] {
    return [this.live!, ...this.others];
  }

  /** What every box held now costs per hour; null when one's price is not known. */
  private get burn(): Fen | null {
    let total = 0;
    for (const b of [...(this.s.box ? [this.s.box] : []), ...(this.s.nodes ?? [])]) {
      if (b.priceFenPerHour === null) return null;
      total += b.priceFenPerHour;
    }
    return this.s.box ? total : null;
  }

  /** Stops the launch (outcome budget) when the cap cannot cover what comes next. */
  private async budgetStops(costToFinishFen?: Fen | null): Promise<boolean> {
    const b = checkBudget(this.s, this.task.budgetFen, this.now(), { burnFenPerHour: this.burn, ...(costToFinishFen !== undefined ? { costToFinishFen } : {}) });
    if (b.ok) return false;
    const words = {
      noPrice: `the budget cap ${formatCny(b.capFen)} cannot be kept: the price per hour of ${this.s.box?.label ?? 'the box'} is not known (set price_yuan_per_hour for an SSH login)`,
      spent: `the budget cap ${formatCny(b.capFen)} is spent (${formatCny(b.spentFen)})`,
      reserve: `the budget cap ${formatCny(b.capFen)} does not cover 10 more minutes at ${formatCny(this.burn ?? 0)}/h (spent ${formatCny(b.spentFen)})`,
      projected: `the projected cost to finish, ${formatCny(b.needFen ?? 0)}, passes the budget cap ${formatCny(b.capFen)}`,
    }[b.reason];
    await this.save(`budget: ${words}`);
    this.stopReason = { kind: 'budget', detail: words };
    return true;
  }

  private stopReason: { kind: LaunchOutcome; detail: string; exitCode?: number | null } | undefined;

  async drive(): Promise<void> {
    for (let guard = 0; guard < 1000 && !isFinished(this.s); guard++) {
      if (this.host.signal?.aborted) throw new Error('cancelled: the launch state is kept; continue with --resume');
      const p = this.s.phase as (typeof LAUNCH_STEPS)[number];
      try {
        if (p === 'acquire') await this.acquire();
        else {
          if (!this.live && !(await this.reconnectOrReclaim(p))) continue;
          if (isFinished(this.s)) break;
          if (p === 'check') await this.check();
          else if (p === 'push') await this.push();
          else if (p === 'setup') await this.setup();
          else if (p === 'run') await this.run();
          else if (p === 'watch') await this.watch();
          else if (p === 'end') await this.end();
        }
      } catch (e) {
        if (e instanceof AcquireError) await this.finish('noBox', e.message);
        else if (this.host.signal?.aborted) throw e;
        else if (this.s.phase === 'watch' || this.s.phase === 'run') throw e;
        else await this.finish('failed', `${p}: ${errText(e)}`);
      }
    }
  }

  private async connect(box: AcquiredBox): Promise<Live> {
    const opts = { ...this.host.connectOptions(box), ...(box.password ? { password: box.password } : {}) };
    const conn = await this.pool.get(poolKey(box), box.target, opts);
    const h = await conn.exec('printf %s "$HOME"', { login: false, timeoutMs: 30000 });
    const home = h.stdout.trim().slice(0, 4096);
    if (!home.startsWith('/')) throw new Error(`the box did not say where its home is (${JSON.stringify(h.stdout.slice(0, 80))})`);
    const remoteWorkdir = onBox(this.task.remoteWorkdir, home);
    return { box, conn, home, remoteWorkdir, ...(this.task.checkpoints ? { remoteCheckpoints: onBox(this.task.checkpoints.remote, home, remoteWorkdir) } : {}) };
  }

  private acquireOptions(createName: string) {
    return {
      accounts: this.accounts,
      waitForGpuMs: this.host.waitForGpuMs ?? 3600_000,
      settleMs: this.host.settleMs ?? 300_000,
      intervalMs: this.host.settleIntervalMs ?? 3000,
      ...(this.host.signal ? { signal: this.host.signal } : {}),
      say: (l: string) => void this.save(l),
      confirmCreate: async (what: string) => this.o.yes || ((await this.host.confirmCreate?.(what)) ?? false),
      createName,
      locks: this.locks,
    };
  }

  private async reconnect(): Promise<void> {
    const b = this.s.box;
    if (!b) return this.phase('acquire');
    const box = await reacquireBox(b, this.task, this.acquireOptions(b.label));
    this.live = await this.connect(box);
    this.others = [];
    for (const n of this.s.nodes ?? []) this.others.push(await this.connect(await reacquireBox(n, this.task, this.acquireOptions(n.label))));
  }

  /**
   * After a restart: the box again. A spot box the platform no longer runs, or a spot login
   * silent for reclaim_after, is reclaimed (the run relaunches); false = try again later.
   */
  private async reconnectOrReclaim(p: LaunchPhase): Promise<boolean> {
    const b = this.s.box;
    const running = p === 'watch' || p === 'run';
    if (b?.kind === 'platform' && running) {
      const st = await platformStateOf(this.accounts.find((a) => a.id === b.account), b.ref, this.host.signal);
      if (st === 'gone' && b.spot) {
        await this.reclaimed('is no longer running (the platform says so)');
        return false;
      }
    }
    try {
      await this.reconnect();
      this.unreachableSince = undefined;
      return true;
    } catch (e) {
      if (!isRemoteError(e) || !b?.spot || !running) throw e;
      this.unreachableSince ??= this.now();
      if (this.now() - this.unreachableSince >= this.task.reclaimAfterSeconds) await this.reclaimed(`has not answered SSH for ${Math.round(this.now() - this.unreachableSince)} s (spot)`);
      else {
        await this.save(`resume: ${b.label} does not answer (${errText(e)}); trying again`);
        await this.sleep(this.host.pollMs ?? 5000);
      }
      return false;
    }
  }

  /** The catalog's view of the task before anything is rented: the cheapest fitting cards, with source and date. */
  private async quote(): Promise<void> {
    const q = quoteTask(this.o.catalog ?? builtinCatalog(), this.task);
    if (!q.rows.length) {
      const why = { noCard: 'no platform in the catalog prices these cards', overCap: 'every catalog price is over max_yuan_per_hour', noPlatform: 'none of the platforms allowed is in the catalog' }[q.empty!];
      return this.save(`quote: ${why}`);
    }
    const top = q.rows.slice(0, 3).map((r) => `${r.card}${r.gpus > 1 ? ` × ${r.gpus}` : ''} on ${r.platformName.en}${r.mode === 'spot' ? ' (spot)' : ''} ${formatCny(r.fenPerHour.min)}${r.fenPerHour.max !== r.fenPerHour.min ? `–${formatCny(r.fenPerHour.max)}` : ''}/h (${r.source}, ${formatDating(dating(r))})`);
    return this.save(`quote: cheapest in the catalog: ${top.join('; ')}`);
  }

  /** A multi-node run: the first `nodes` candidates, every one of them, rank 0 first. */
  private async acquireNodes(n: number): Promise<void> {
    if (this.task.instances.length < n) return this.finish('noBox', `nodes: ${n} needs ${n} instances; the task names ${this.task.instances.length}`);
    const records: LaunchBox[] = [];
    const lives: Live[] = [];
    for (let i = 0; i < n; i++) {
      const cand = this.task.instances[i]!;
      const created = records.filter((b) => b.created).length;
      const box = await acquireBox(cand, this.task, this.acquireOptions(created ? `${this.task.name}-${created + 1}` : this.task.name));
      const record: LaunchBox = { candidate: i, kind: box.kind, label: box.label.slice(0, 300), ...(box.login ? { login: box.login.slice(0, 2000) } : {}), ...(box.account ? { account: box.account } : {}), ...(box.ref ? { ref: box.ref } : {}), ...(box.created ? { created: true } : {}), priceFenPerHour: box.priceFenPerHour, spot: box.spot, acquiredAt: this.now() };
      records.push(record);
      await this.save(`acquired rank ${i}: ${record.label} at ${box.priceFenPerHour === null ? '? ¥/h (price not known)' : `${formatCny(box.priceFenPerHour)}/h`}`, { box: records[0], nodes: records.slice(1) });
      lives.push(await this.connect(box));
    }
    this.live = lives[0];
    this.others = lives.slice(1);
    return this.phase('check', `connected to ${n} nodes`);
  }

  private async acquire(): Promise<void> {
    if (!this.s.box && !this.s.boxes.length) await this.quote();
    if (await this.budgetStops()) return this.finish('budget', this.stopReason!.detail);
    if ((this.task.nodes ?? 1) > 1) return this.acquireNodes(this.task.nodes!);
    const kinds = this.task.instances.map((i) => (i.kind === 'new' ? ('new' as const) : ('existing' as const)));
    const reasons: string[] = [];
    for (;;) {
      const i = nextCandidate(this.s, kinds);
      if (i === null) return this.finish('noBox', reasons.length ? `no instance could be had: ${reasons.join('; ')}` : 'every instance the task names was lost');
      const cand = this.task.instances[i]!;
      const created = [...this.s.boxes, ...(this.s.box ? [this.s.box] : [])].filter((b) => b.created).length;
      const createName = created ? `${this.task.name}-${created + 1}` : this.task.name;
      await this.save(`acquire: ${cand.kind === 'ssh' ? 'SSH login' : cand.kind === 'new' ? `a new instance (${this.task.resources.cards.join(', ') || 'any card'})` : cand.kind === 'named' ? `instance ${cand.ref}` : ''}`);
      try {
        const box = await acquireBox(cand, this.task, this.acquireOptions(createName));
        const record: LaunchBox = { candidate: i, kind: box.kind, label: box.label.slice(0, 300), ...(box.login ? { login: box.login.slice(0, 2000) } : {}), ...(box.account ? { account: box.account } : {}), ...(box.ref ? { ref: box.ref } : {}), ...(box.created ? { created: true } : {}), priceFenPerHour: box.priceFenPerHour, spot: box.spot, acquiredAt: this.now() };
        await this.save(`acquired ${record.label} at ${box.priceFenPerHour === null ? '? ¥/h (price not known)' : `${formatCny(box.priceFenPerHour)}/h`}${box.spot ? ' (spot)' : ''}`, { box: record });
        try {
          this.live = await this.connect(box);
        } catch (e) {
          await this.save(`could not connect to ${record.label}: ${errText(e)}`, { boxes: [...this.s.boxes, { ...record, leftAt: this.now(), leftBecause: 'failed' }], box: undefined });
          reasons.push(`${record.label}: ${errText(e)}`);
          continue;
        }
        return this.phase('check', `connected to ${record.label}`);
      } catch (e) {
        if (!(e instanceof AcquireError) || cand.kind === 'new') throw e;
        reasons.push(e.message);
        // An existing candidate that cannot be had is skipped for this launch.
        await this.save(`skipped: ${e.message}`, { boxes: [...this.s.boxes, { candidate: i, kind: cand.kind === 'ssh' ? 'ssh' : 'platform', label: (cand.kind === 'ssh' ? cand.login : cand.ref).slice(0, 300), priceFenPerHour: null, spot: false, acquiredAt: this.now(), leftAt: this.now(), leftBecause: 'failed' }] });
      }
    }
  }

  private async check(): Promise<void> {
    for (const live of this.all) if (!(await this.checkOne(live))) return this.phase('end');
    return this.phase('push');
  }

  /** The doctor on one box; false (and the stop reason) when its verdict is red. */
  private async checkOne(live: Live): Promise<boolean> {
    const card = this.task.resources.cards[0] ?? '';
    const pr = await probeInstance(live.conn, { card, gpuCount: this.task.resources.gpus, state: 'running' }, this.now(), this.host.signal);
    const level = verdictLevel(pr.diagnosis);
    const gpus = pr.gpus.map((g) => g.name).join(', ') || 'no GPU';
    const cardLine = pr.card && pr.card.kind !== 'match' ? ` · card check: ${pr.card.kind}` : '';
    if (level === 'error') {
      await this.save(`check: ${gpus}; the doctor's verdict is ${pr.diagnosis.verdict} (${pr.diagnosis.reasons.map((r) => r.code).join(', ')})${cardLine}`);
      this.stopReason = { kind: 'doctor', detail: `the GPU check failed on ${live.box.label}: ${pr.diagnosis.verdict}; nothing was pushed or run (gpu-rent doctor says what to fix)` };
      return false;
    }
    await this.save(`check${this.others.length ? ` ${live.box.label}` : ''}: ${gpus}, driver ${pr.diagnosis.driverVersion ?? '?'}, torch ${pr.diagnosis.torchVersion ?? '?'}: ${pr.diagnosis.verdict}${cardLine}`);
    return true;
  }

  private async push(): Promise<void> {
    if (await this.budgetStops()) return this.phase('end');
    for (const live of this.all) if (!(await this.pushTo(live))) return;
    return this.phase('setup');
  }

  /** The workdir and data to one box (and, after a recovery, the checkpoints); false when it stopped the launch. */
  private async pushTo(live: Live): Promise<boolean> {
    const remote = syncRemote(live.conn);
    const workdir = resolve(this.base, this.task.workdir);
    const localCkpt = this.task.checkpoints ? resolve(this.base, this.task.checkpoints.local) : undefined;
    const ex = await workdirExclusions(workdir, [localCkpt, ...this.task.data.map((d) => (d.push ? resolve(this.base, d.push) : undefined))].filter((p): p is string => !!p && p.startsWith(workdir + '/')).map((p) => p.slice(workdir.length + 1)));
    const r = await pushFolder(remote, { localDir: workdir, remoteDir: live.remoteWorkdir, exclude: ex.exclude, ...(this.host.signal ? { signal: this.host.signal } : {}) });
    if (r.kind === 'secrets-found') return this.fail('failed', `push: the secret scan found ${r.findings.length} likely secret(s) in ${workdir} (${r.findings.slice(0, 5).map((f) => `${f.path}: ${f.kind}`).join(', ')}); nothing was sent. Remove them or add them to .gitignore`);
    if (r.kind === 'scan-incomplete') return this.fail('failed', `push: the secret scan stopped at its limit (${r.scan.truncated}); nothing was sent`);
    await this.save(`push: workdir → ${live.remoteWorkdir}: ${r.report.files} sent, ${r.report.unchanged ?? 0} already there, ${ex.ignored} left out by .gitignore`);
    for (const d of this.task.data) {
      if (!d.push) continue;
      const local = resolve(this.base, d.push);
      const to = onBox(d.remote, live.home, live.remoteWorkdir);
      const dr = await pushFolder(remote, { localDir: local, remoteDir: to, ...(this.host.signal ? { signal: this.host.signal } : {}) });
      if (dr.kind !== 'pushed') return this.fail('failed', `push: ${d.push}: ${dr.kind === 'secrets-found' ? `the secret scan found ${dr.findings.length} likely secret(s)` : 'the secret scan stopped at its limit'}; not sent`);
      await this.save(`push: ${d.push} → ${to}: ${dr.report.files} sent`);
    }
    // A recovery: the last verified checkpoint goes up before the resume.
    if (this.s.recoveries > 0 && localCkpt && live.remoteCheckpoints && this.s.lastSync?.checkpoint) {
      const cp = await pushFolder(remote, { localDir: localCkpt, remoteDir: live.remoteCheckpoints, ...(this.host.signal ? { signal: this.host.signal } : {}) });
      if (cp.kind !== 'pushed') return this.fail('failed', `push: the checkpoints could not be sent back: ${cp.kind}`);
      await this.save(`push: checkpoints → ${live.remoteCheckpoints}: ${cp.report.files} sent (resuming from ${this.s.lastSync.checkpoint})`);
    }
    return true;
  }

  private async fail(kind: 'failed', detail: string): Promise<false> {
    await this.finish(kind, detail);
    return false;
  }

  /** Runs `lines` as a detached job named `name` in the remote workdir and waits for it to end; its exit code. */
  private async detached(live: Live, name: string, lines: string[]): Promise<JobInfo> {
    const existing = (await listJobs(live.conn, { name }))[0];
    let job: JobInfo | undefined = existing && (existing.state === 'running' || existing.state === 'starting') ? existing : undefined;
    if (!job) job = await startJob(live.conn, { name, command: [['set -e', ...this.activation(), ...lines].join('\n')], cwd: live.remoteWorkdir, env: this.task.env });
    for (;;) {
      const j = (await listJobs(live.conn, { name }))[0];
      if (!j || (j.state !== 'running' && j.state !== 'starting')) return j ?? { ...job, state: 'lost' };
      await this.sleep(Math.min(2000, this.host.pollMs ?? 5000));
    }
  }

  /** The env rebuilt from the task's capture: its name, and the line that puts its python first on PATH. */
  private envName(): string {
    return /^[A-Za-z0-9]/.test(this.task.name) ? this.task.name : `env${this.task.name}`;
  }

  private activation(): string[] {
    if (!this.task.environment) return [];
    const n = shQuote(this.envName());
    return [`if command -v conda >/dev/null 2>&1 && [ -d "$(conda info --base)/envs/"${n} ]; then export PATH="$(conda info --base)/envs/"${n}"/bin:$PATH"; elif [ -d "$HOME/.gpu-rent/venvs/"${n} ]; then export PATH="$HOME/.gpu-rent/venvs/"${n}"/bin:$PATH"; fi`];
  }

  /** The capture rebuilt on this box (a detached job env-NAME; torch for this box's driver). */
  private async rebuildEnvironment(live: Live): Promise<boolean> {
    const { readCapture, rebuild } = await import('../environment');
    const at = resolve(this.base, this.task.environment!);
    const dir = at.endsWith('.json') ? resolve(at, '..') : at;
    const name = this.envName();
    const running = (await listJobs(live.conn, { name: `env-${name}` }))[0];
    if (!running || (running.state !== 'running' && running.state !== 'starting')) {
      const cap = await readCapture(dir);
      const started = await rebuild(live.conn, cap, { envName: name });
      await this.save(`setup: rebuilding the environment from ${this.task.environment} as ${name} (${started.requirements.kept} requirement(s), for driver ${started.targetDriver.version ?? '?'})`);
    }
    for (;;) {
      const j = (await listJobs(live.conn, { name: `env-${name}` }))[0];
      if (j && (j.state === 'running' || j.state === 'starting')) {
        await this.sleep(Math.min(2000, this.host.pollMs ?? 5000));
        continue;
      }
      const log = j ? await live.conn.exec(`tail -n 5 ${shQuote(j.logPath)} 2>/dev/null`, { login: false, timeoutMs: 15000, maxOutputBytes: 8192 }).then((r) => r.stdout, () => '') : '';
      if (j?.state === 'exited' && j.exitCode === 0) {
        await this.save(`setup: environment ${name} ready`);
        return true;
      }
      // An env of that name from an earlier try on this box is kept and used.
      if (j?.state === 'exited' && j.exitCode === 3 && /exists already/.test(log)) {
        await this.save(`setup: environment ${name} is already on this box; using it`);
        return true;
      }
      this.stopReason = { kind: 'failed', detail: `the environment rebuild failed (exit ${j?.exitCode ?? j?.state ?? 'gone'}): ${log.replace(/\s+/g, ' ').slice(-400)}` };
      return false;
    }
  }

  private async setup(): Promise<void> {
    const fetches = this.task.data.filter((d) => d.fetch).length;
    if (this.s.setupDone || (fetches + this.task.setup.length === 0 && !this.task.environment)) return this.phase('run', this.s.setupDone ? undefined : 'setup: nothing to set up');
    if (await this.budgetStops()) return this.phase('end');
    // Every node at once (the same commands, each on its own box).
    const results = await Promise.all(this.all.map((live) => this.setupOne(live)));
    if (results.some((ok) => !ok)) return this.phase('end');
    await this.save('setup: done', { setupDone: true });
    return this.phase('run');
  }

  /** The environment rebuild, data fetches and setup commands on one box; false (and the stop reason) when one failed. */
  private async setupOne(live: Live): Promise<boolean> {
    const on = this.others.length ? ` on ${live.box.label}` : '';
    const lines = [...this.task.data.filter((d) => d.fetch).map((d) => `mkdir -p ${shQuote(onBox(d.remote, live.home, live.remoteWorkdir))} && (cd ${shQuote(onBox(d.remote, live.home, live.remoteWorkdir))} && ${d.fetch})`), ...this.task.setup];
    if (this.task.environment && !(await this.rebuildEnvironment(live))) return false;
    if (!lines.length) return true;
    await this.save(`setup${on}: ${lines.length} command(s) on the box (detached: a dropped link does not stop them)`);
    const j = await this.detached(live, `${this.task.name}-setup`, lines);
    if (j.state !== 'exited' || j.exitCode !== 0) {
      const tail = await live.conn.exec(`tail -n 5 ${shQuote(j.logPath)} 2>/dev/null`, { login: false, timeoutMs: 15000, maxOutputBytes: 8192 }).then((r) => r.stdout.replace(/\s+/g, ' ').slice(-400), () => '');
      this.stopReason = { kind: 'failed', detail: `setup failed${on} (exit ${j.exitCode ?? j.state}): ${tail}` };
      return false;
    }
    return true;
  }

  private resumeCommand(): { command: string; from?: string } {
    const cp = this.s.lastSync?.checkpoint;
    if (this.s.recoveries > 0 || this.s.job) {
      if (this.task.resume && cp && this.live?.remoteCheckpoints) {
        const path = posix.join(this.live.remoteCheckpoints, cp);
        return { command: this.task.resume.split('{checkpoint}').join(shQuote(path)), from: path };
      }
    }
    return { command: this.task.run };
  }

  private async run(): Promise<void> {
    const live = this.live!;
    if (await this.budgetStops()) return this.phase('end');
    const existing = (await listJobs(live.conn, { name: this.task.name }))[0];
    if (existing && (existing.state === 'running' || existing.state === 'starting') && this.s.job) return this.phase('watch', `run: ${this.task.name} is still running on the box`);
    const { command, from } = this.resumeCommand();
    if (this.others.length) return this.runNodes(command, from);
    const job = await startJob(live.conn, { name: this.task.name, command: [[...this.activation(), command].join('; ')], cwd: live.remoteWorkdir, env: this.task.env });
    const attempt = (this.s.job?.attempt ?? 0) + 1;
    this.tail = undefined;
    return this.save(`run: started ${job.name} (pid ${job.pid ?? '?'}, via ${job.runner ?? '?'})${from ? `, resuming from ${from}` : ''}`, { phase: 'watch', job: { name: job.name, startedAt: job.startedAt ?? this.now(), attempt, ...(from ? { resumedFrom: from } : {}) } });
  }

  /** The run on every node at once through the launcher (rank 0 first; the others stopped when one fails to start). */
  private async runNodes(command: string, from: string | undefined): Promise<void> {
    const r = await startMultiNode(this.runNodesOf(), {
      name: this.task.name,
      command: splitCommand(command),
      launcher: this.task.launcher!,
      cwd: this.task.remoteWorkdir,
      env: this.task.env,
      ...(this.task.masterAddr ? { masterAddr: this.task.masterAddr } : {}),
      ...(this.task.rendezvousPort ? { port: this.task.rendezvousPort } : {}),
    });
    const attempt = (this.s.job?.attempt ?? 0) + 1;
    this.tail = undefined;
    const first = r.nodes[0]!.job;
    return this.save(`run: started ${r.name} on ${r.nodes.length} nodes with ${this.task.launcher} (${r.gpusPerNode} GPU(s) each, rendezvous ${r.masterAddr}:${r.port})${from ? `, resuming from ${from}` : ''}`, { phase: 'watch', job: { name: r.name, startedAt: first.startedAt ?? this.now(), attempt, ...(from ? { resumedFrom: from } : {}) } });
  }

  private runNodesOf(): RunNode[] {
    return this.all.map((l) => ({ label: l.box.label, conn: l.conn }));
  }

  private async syncCheckpoints(final: boolean): Promise<{ ok: boolean; files: number; bytes: number; detail: string }> {
    const live = this.live!;
    const c = this.task.checkpoints!;
    const localDir = resolve(this.base, c.local);
    const r = await syncOnce(syncRemote(live.conn), { remoteDir: live.remoteCheckpoints!, localDir, durable: true, ...(final ? {} : { waitForSettle: false }), ...(this.host.signal ? { signal: this.host.signal } : {}) });
    const out = syncOutcomeOf(r);
    this.lastSyncAt = this.now();
    // A checkpoint counts once every file of it came home verified: entries with a file still
    // being written (skipped until it settles) wait for the next pass.
    const unsettled = new Set(r.skipped.map((k) => k.name.split('/')[0]!));
    const checkpoint = r.interrupted ? undefined : await newestCheckpoint(localDir, unsettled);
    const keep = checkpoint ?? this.s.lastSync?.checkpoint;
    await this.save(`sync: ${out.detail}${checkpoint ? ` (newest complete: ${checkpoint})` : ''}`, r.interrupted ? {} : { lastSync: { at: this.now(), files: r.files, bytes: r.bytes, ...(keep ? { checkpoint: keep } : {}) } });
    return out;
  }

  private async sleep(ms: number): Promise<void> {
    await sleep(ms, this.host.signal);
  }

  private price(): RunPrice | null {
    const b = this.burn;
    return b === null ? null : { computeFenPerHour: b, storageFenPerDay: 0, ...(this.s.box?.spot && this.task.checkpoints ? { spot: { syncIntervalSeconds: this.task.checkpoints.everySeconds } } : {}) };
  }

  /** The box is gone (the platform says so, or a spot login stopped answering): relaunch from the last checkpoint. */
  private async reclaimed(why: string): Promise<void> {
    const b = this.s.box!;
    await this.save(`reclaimed: ${b.label} ${why}; ${this.s.lastSync?.checkpoint ? `the last verified checkpoint is ${this.s.lastSync.checkpoint}` : 'no checkpoint was synced yet: the run starts over'}`, { boxes: [...this.s.boxes, { ...b, leftAt: this.now(), leftBecause: 'reclaimed' }], box: undefined, recoveries: this.s.recoveries + 1, setupDone: false });
    if (this.live) this.pool.invalidate(poolKey(this.live.box));
    this.live = undefined;
    this.tail = undefined;
    this.unreachableSince = undefined;
    this.spotService = true;
    return this.phase('acquire', `recovery #${this.s.recoveries}: relaunching on the next instance`);
  }

  private async watch(): Promise<void> {
    const live = this.live!;
    const pollMs = this.host.pollMs ?? 5000;
    const every = this.task.checkpoints?.everySeconds;
    if (!this.lastSyncAt) this.lastSyncAt = this.s.lastSync?.at ?? this.now();
    for (;;) {
      if (this.host.signal?.aborted) throw new Error('cancelled: the run goes on on the box; continue with --resume');
      let job: JobInfo | undefined;
      try {
        job = (await listJobs(live.conn, { name: this.task.name, timeoutMs: 20000 }))[0];
        this.unreachableSince = undefined;
      } catch (e) {
        if (!isRemoteError(e)) throw e;
        this.unreachableSince ??= this.now();
        const gone = this.s.box?.kind === 'platform' ? await platformStateOf(this.accounts.find((a) => a.id === this.s.box?.account), this.s.box?.ref) : 'unknown';
        if (gone === 'gone') return this.reclaimed('is no longer running (the platform says so)');
        if (this.s.box?.spot && this.now() - this.unreachableSince >= this.task.reclaimAfterSeconds) return this.reclaimed(`has not answered SSH for ${Math.round(this.now() - this.unreachableSince)} s (spot)`);
        await this.save(`watch: the box does not answer (${errText(e)}); trying again`);
        await this.sleep(pollMs);
        continue;
      }
      if (!job) return this.finishRun('failed', 'the run is not on the box any more (its job folder is gone)', null);
      if (job.state === 'exited' || job.state === 'lost') {
        if (job.state === 'exited' && job.exitCode === 0) return this.finishRun('finished', `${job.name} finished (exit 0)`, 0);
        if (this.stopReason) return this.phase('end');
        return this.finishRun('runFailed', `${job.name} ${job.state === 'lost' ? 'was lost (the box restarted?)' : `exited with code ${job.exitCode}`}`, job.exitCode);
      }
      // Another node's run ended while rank 0 goes on: the run cannot finish; stop them all.
      if (this.others.length) {
        const states = await multiNodeJobs(this.runNodesOf().slice(1), this.task.name).catch(() => []);
        const dead = states.find((x) => x.job && x.job.state !== 'running' && x.job.state !== 'starting' && !(x.job.state === 'exited' && x.job.exitCode === 0));
        if (dead) return this.stopRun('runFailed', `${dead.label} ended its part of the run (${dead.job!.state === 'exited' ? `exit ${dead.job!.exitCode}` : dead.job!.state}): the others were stopped`);
      }
      this.tail ??= new LogTail(job.logPath);
      const u = await this.tail.update(live.conn).catch(() => undefined);
      const progress = u?.progress ?? this.tail.progress;
      const f = estimateFinish(progress, this.price(), { boxNow: u?.chunk.boxNow ?? this.now(), localNow: this.now(), alive: true });
      const spent = spentFen(this.s, this.now());
      const line = `watch: ${progress.step !== null ? `step ${progress.step}${progress.total !== null ? `/${progress.total}` : ''}` : 'no progress line yet'}${progress.loss !== null ? ` · loss ${progress.loss}` : ''}${f.etaSeconds !== null ? ` · ETA ${Math.round(f.etaSeconds / 60)} min` : ''}${f.costToFinishFen !== null ? ` · ${formatCny(f.costToFinishFen)} to finish` : ''} · spent ${spent.unknown ? '?' : formatCny(spent.fen)}`;
      const prev = this.s.progress;
      const changed = !prev || prev.step !== progress.step || prev.total !== progress.total;
      // The first reading with a step is said at once (a first poll before any bar must not hold it back 30 s).
      const say = changed && (this.lastLineAt === 0 || (prev?.step ?? null) === null || this.now() - this.lastLineAt >= PROGRESS_LINE_SECONDS);
      if (say) this.lastLineAt = this.now();
      await this.save(say ? line : undefined, { progress: { step: progress.step, total: progress.total, etaSeconds: f.etaSeconds, costToFinishFen: f.costToFinishFen, loss: progress.loss } });
      // The box's own notice (阿里云 metadata): the checkpoints come home now, then the run moves.
      if (this.s.box?.spot && this.spotService) {
        const n = await readSpotNotice(live.conn, this.host.spotMetadataHost, this.host.signal).catch(() => ({ kind: 'none' as const }));
        if (n.kind === 'noService') {
          this.spotService = false;
          await this.save('spot: this box has no reclaim notice service; a reclaim is seen when the platform or the box stops answering');
        } else if (n.kind === 'notice') {
          await this.save(`spot: the platform announced the reclaim of ${this.s.box.label} at ${n.at}: syncing the checkpoints now`);
          if (this.task.checkpoints) await this.syncCheckpoints(false).catch((e: unknown) => this.save(`sync: failed: ${errText(e)}`));
          return this.reclaimed(`announced its reclaim at ${n.at}`);
        }
      }
      // Platform: a spot box the platform took back.
      if (this.s.box?.kind === 'platform' && this.s.box.spot) {
        const st = await platformStateOf(this.accounts.find((a) => a.id === this.s.box?.account), this.s.box?.ref);
        if (st === 'gone') {
          if (this.task.checkpoints) await this.syncCheckpoints(false).catch(() => undefined);
          return this.reclaimed('was taken back by the platform');
        }
      }
      if (every !== undefined && this.now() - this.lastSyncAt >= every) await this.syncCheckpoints(false).catch((e: unknown) => this.save(`sync: failed: ${errText(e)}`));
      const running = this.now() - (this.s.job?.startedAt ?? this.now());
      const smoke = this.s.smoke ? smokeReached(this.task.smoke, { step: progress.step, runningSeconds: running }) : null;
      if (smoke) return this.stopRun('smoke', `smoke test done: ${smoke === 'steps' ? `${progress.step} steps` : `${Math.round(running)} s`} ran; the full run is \`gpu-rent launch\` without --smoke`);
      if (await this.budgetStops(f.costToFinishFen)) return this.stopRun('budget', this.stopReason!.detail);
      await this.sleep(pollMs);
    }
  }

  private async stopRun(kind: LaunchOutcome, detail: string): Promise<void> {
    this.stopReason = { kind, detail };
    // The checkpoints come home before the run is stopped (the end's verified sync follows).
    if (this.task.checkpoints) await this.syncCheckpoints(false).catch(() => undefined);
    if (this.others.length) await stopMultiNode(this.runNodesOf(), this.task.name, { graceSeconds: 10 }).catch((e: unknown) => this.save(`stop: ${errText(e)}`));
    else await stopJob(this.live!.conn, this.task.name, { graceSeconds: 10 }).catch((e: unknown) => this.save(`stop: ${errText(e)}`));
    return this.phase('end', `stopping the run: ${detail}`);
  }

  private async finishRun(kind: LaunchOutcome, detail: string, exitCode: number | null): Promise<void> {
    this.stopReason ??= { kind, detail, exitCode };
    return this.phase('end', detail);
  }

  private platformPower(b: LaunchBox | undefined): PowerActions | undefined {
    const a = b?.kind === 'platform' ? this.accounts.find((x) => x.id === b.account) : undefined;
    if (!a || !b?.ref || !a.powerActions) return undefined;
    const ref = b.ref;
    const o = { deadlineMs: this.host.settleMs ?? 300_000, intervalMs: this.host.settleIntervalMs ?? 3000 };
    return {
      kind: a.connector.kind,
      powerOff: async () => {
        await a.connector.powerOff(ref, powerOffModeFor(a.connector.kind));
        const r = await waitForState(a.connector, ref, TARGET.powerOff, o);
        if (!r.settled) throw new Error(`the platform accepted the power-off but reports ${r.last?.state ?? '?'}`);
      },
      noGpu: async () => {
        await a.connector.powerOff(ref, 'keep');
        const off = await waitForState(a.connector, ref, TARGET.powerOff, o);
        if (!off.settled) throw new Error(`the platform accepted the power-off but reports ${off.last?.state ?? '?'}`);
        await a.connector.powerOn(ref, 'noGpu');
        const r = await waitForState(a.connector, ref, TARGET.powerOnNoGpu, o);
        if (!r.settled) throw new Error(`the platform accepted the no-GPU start but reports ${r.last?.state ?? '?'}`);
      },
    };
  }

  private async end(): Promise<void> {
    const reason = this.stopReason ?? (this.s.outcome ? { kind: this.s.outcome.kind, detail: this.s.outcome.detail, exitCode: this.s.outcome.exitCode } : { kind: 'failed' as const, detail: 'the launch was interrupted before its end; the end action ran on resume' });
    const ranNothing = reason.kind === 'doctor' || !this.s.job;
    const action: EndAction = ranNothing ? (this.task.end === 'power-off' ? 'sync-then-power-off' : this.task.end === 'no-gpu' ? 'sync-then-no-gpu' : 'nothing') : endActionOf(this.task);
    const results: EndActionResult[] = [];
    if (this.live) {
      const records = [this.s.box, ...(this.s.nodes ?? [])];
      for (const [rank, live] of this.all.entries()) {
        // Rank 0 holds the checkpoints; the other nodes act only once its sync is verified.
        const first = rank === 0;
        if (!first && results[0] && !results[0].ok && results[0].stopped === 'syncFailed') break;
        const power = this.platformPower(records[rank]);
        const boxCmd = action === 'sync-then-power-off' && !power ? boxPowerOffCommand((await probeBoxPower(live.conn).catch(() => ({ power: 'unknown' as const }))).power) : null;
        const inst = { id: this.others.length ? `${this.task.name} rank ${rank}` : this.task.name, intervals: [] } as unknown as Instance;
        const r = await runEndAction(action, inst, {
          // Nothing ran (a red doctor): there is nothing of this launch's on the box to bring home.
          sync: async () => (ranNothing || !this.task.checkpoints ? { ok: true, files: 0, bytes: 0, detail: 'nothing to sync: the run did not start' } : first ? this.syncCheckpoints(true) : { ok: true, files: 0, bytes: 0, detail: 'the checkpoints come from rank 0 (verified)' }),
          power,
          ...(boxCmd ? { powerOffFromBox: () => powerOffFromBox(live.conn, boxCmd, { verifySeconds: this.host.powerVerifySeconds ?? 120, pollMs: 1000 }) } : {}),
          log: () => undefined,
        });
        results.push(r);
        const on = this.others.length ? ` (${live.box.label})` : '';
        for (const st of r.steps) if (first || st.step !== 'sync') await this.save(`end${on}: ${st.step} ${st.ok ? 'ok' : 'FAILED'}${'via' in st ? ` (${st.via})` : ''}: ${st.detail}`);
        if (this.task.end === 'release' && r.ok) await this.release(records[rank]);
      }
    }
    const ok = results.length > 0 && results.length === this.all.length && results.every((r) => r.ok);
    const stillBilling = results.some((r) => r.stillBilling) || (action !== 'nothing' && action !== 'sync' && results.length < (this.live ? this.all.length : 0));
    const billing = stillBilling ? ` The box${this.others.length ? 'es keep' : ' keeps'} billing${this.burn !== null ? ` ${formatCny(this.burn)}/h` : ''}: power ${this.others.length ? 'them' : 'it'} off yourself (gpu-rent power-off or the console).` : '';
    await this.save(undefined, { end: { action: this.task.end, ok, stillBilling, detail: (results.length ? results.flatMap((r) => r.steps.map((x) => `${x.step}: ${x.ok ? 'ok' : 'failed'}`)).join(', ') : 'no connection to the box') + billing } });
    return this.finish(reason.kind, reason.detail + billing, reason.exitCode);
  }

  private async release(b: LaunchBox | undefined): Promise<void> {
    const a = b?.kind === 'platform' ? this.accounts.find((x) => x.id === b.account) : undefined;
    if (!b || !a || !b.ref) return this.save('end: release: an SSH login cannot be released from here; release it in the platform console (the checkpoints are home)');
    if (!a.powerActions) return this.save(`end: release: account ${a.id} is read-only; nothing released`);
    if (!this.o.yes && !(await this.host.confirmRelease?.(b.label))) return this.save(`end: release: not confirmed; ${b.label} is kept (it keeps billing its disk)`);
    await a.connector.release(b.ref);
    const r = await waitForState(a.connector, b.ref, TARGET.release, { deadlineMs: this.host.settleMs ?? 300_000, intervalMs: this.host.settleIntervalMs ?? 3000 });
    return this.save(`end: release: ${r.settled ? 'released (the platform reports it)' : `sent, but the platform reports ${r.last?.state ?? '?'}`}`);
  }
}

/** The state of task `name` from the task file `file`, or undefined when it never launched. */
export function launchStatus(configHome: string, file: string, name: string): Promise<LaunchState | undefined> {
  return readState(statePath(configHome, file, name));
}

export { statePath } from './store';
export const _forTests = { onBox, endActionOf, join };
