// `gpu-rent launch [TASK] [--file F] [--smoke] [--resume] [--status] [--yes] [--json]`: a task
// from gpu-rent.yaml run end to end (src/app/launch/run.ts): acquire, check, push, setup, run,
// verified syncs, the end action. Every step goes to stderr as it happens; the state is kept
// on disk, so a killed launch continues with --resume.
import { formatCny } from '../../core/money';
import { spentFen, type LaunchState } from '../../core/task/launch';
import type { Task } from '../../core/task/types';
import { forTerminal, jsonForTerminal } from '../../core/text';
import { configHome } from '../../app/platforms/accountFile';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand } from '../command';
import { jsonError } from '../json-error';
import { loadCatalog } from '../catalog-file';
import type { CliIO } from '../command';

function fail(io: CliIO, code: string, message: string, exit: number): number {
  io.stdout(jsonError(code, message));
  return exit;
}
import { connectOptions, promptLine, REMOTE_FLAGS } from '../remote-common';

const specs = {
  file: { type: 'string', short: 'f', valueName: 'FILE', description: 'the task file (default ./gpu-rent.yaml, else ./gpu-rent.yml)' },
  smoke: { type: 'boolean', description: "the small test first: stop after the task's smoke steps or minutes (default 20 steps or 5 min), sync, end" },
  resume: { type: 'boolean', description: 'continue the launch in progress (after Ctrl-C, a crash, the laptop sleeping)' },
  status: { type: 'boolean', description: 'show where the launch is (step, box, progress, spent, last sync) and do nothing' },
  yes: { type: 'boolean', description: 'do not ask: instance: new creates, end: release releases (after the verified final sync)' },
  json: { type: 'boolean', description: 'print the launch state as JSON at the end (with --status: now)' },
  catalog: { type: 'string', valueName: 'FILE', description: 'JSON file of price overrides merged over the built-in catalog (the quote before renting)' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent launch [TASK] [--file gpu-rent.yaml] [--smoke] [--resume] [--status] [--yes] [--json]';
const SUMMARY = [
  'Runs a task from gpu-rent.yaml end to end: gets the box (an SSH login, an instance by name',
  '— powered on, waiting for a card — or a new one), checks the GPU (a red doctor verdict stops',
  'before hours are paid), pushes the workdir as git sees it (.gitignore respected, secret-scanned),',
  'runs setup and the run detached (they survive a dropped link), shows progress, ETA and ¥ to finish,',
  'syncs checkpoints (verified) every interval, and ends with the end action (no-gpu, power-off,',
  'release) only after the final sync is verified. A budget cap stops the run (sync first) when the',
  'projected cost passes it. A reclaimed spot box relaunches on the next instance from the last',
  'checkpoint (resume: with {checkpoint}). The state is kept in ~/.config/gpu-rent/launches/:',
  'a killed launch continues with --resume. TASK is a task name in the file (default: its first task).',
].join('\n');

/** Reads and validates the task file; a UsageError names the line and field of every problem. */
export async function readTaskFileOrExit(flagFile: string | undefined, cwd: string): Promise<{ file: string; tasks: Task[] }> {
  const { readTaskFile, taskFileErrorLines } = await import('../../app/launch/taskFile');
  const r = await readTaskFile(cwd, flagFile);
  if (r.ok) return r;
  if (r.kind === 'notFound') throw new UsageError(`no task file: ${r.looked.join(' or ')} not found (write one: gpu-rent launch --help, the README's "Launch a task")`);
  if (r.kind === 'unreadable') throw new UsageError(`cannot read the task file ${r.file}: ${r.message}`);
  throw new UsageError(`${r.file} has ${r.errors.length} problem(s):\n${taskFileErrorLines(r.errors).map((l) => `  ${l}`).join('\n')}`);
}

export function pickTask(tasks: readonly Task[], name: string | undefined, file: string): Task {
  if (!name) return tasks[0]!;
  const t = tasks.find((x) => x.name === name);
  if (!t) throw new UsageError(`no task ${JSON.stringify(name.slice(0, 80))} in ${file} (it has ${tasks.map((x) => x.name).join(', ')})`);
  return t;
}

const clock = (s: number) => new Date(s * 1000).toISOString().slice(11, 19);

function statusText(s: LaunchState, now: number): string {
  const spent = spentFen(s, now);
  const lines = [
    `${s.task}: ${s.phase}${s.outcome ? ` — ${s.outcome.kind}: ${s.outcome.detail}` : ''}${s.smoke ? ' (smoke test)' : ''}`,
    `  started ${new Date(s.startedAt * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC, updated ${clock(s.updatedAt)}`,
    `  box: ${s.box ? `${s.box.label}, ${s.box.priceFenPerHour === null ? '? ¥/h' : `${formatCny(s.box.priceFenPerHour)}/h`}${s.box.spot ? ', spot' : ''}` : 'none held'}`,
    `  spent: ${spent.unknown ? `? (a box's price is not known; ${formatCny(spent.fen)} known)` : formatCny(spent.fen)} · #recoveries ${s.recoveries}`,
    ...(s.progress ? [`  progress: ${s.progress.step ?? '?'}/${s.progress.total ?? '?'}${s.progress.loss !== null ? ` · loss ${s.progress.loss}` : ''}${s.progress.etaSeconds !== null ? ` · ETA ${Math.round(s.progress.etaSeconds / 60)} min` : ''}${s.progress.costToFinishFen !== null ? ` · ${formatCny(s.progress.costToFinishFen)} to finish` : ''}`] : []),
    ...(s.lastSync ? [`  last verified sync: ${clock(s.lastSync.at)}, ${s.lastSync.files} file(s)${s.lastSync.checkpoint ? `, newest ${s.lastSync.checkpoint}` : ''}`] : []),
    ...(s.end ? [`  end (${s.end.action}): ${s.end.ok ? 'done' : 'NOT done'}${s.end.stillBilling ? ' — STILL BILLING' : ''}: ${s.end.detail}`] : []),
    ...s.boxes.map((b) => `  earlier box: ${b.label} (${b.leftBecause ?? 'left'})`),
    '  recent:',
    ...s.events.slice(-8).map((e) => `    ${clock(e.at)} ${e.text}`),
  ];
  return lines.map((l) => forTerminal(l)).join('\n') + '\n';
}

function stateJson(s: LaunchState, now: number) {
  const spent = spentFen(s, now);
  return { ...s, spentFen: spent.unknown ? null : spent.fen, spentKnownFen: spent.fen };
}

export const command: CliCommand = {
  name: 'launch',
  summary: 'run a task from gpu-rent.yaml end to end: box, check, push, setup, run, synced checkpoints, end action',
  summaryZh: '从 gpu-rent.yaml 完整运行一个任务：机器、检查、上传、环境准备、运行、同步检查点、结束动作',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TASK' });
    if (flags.status && (flags.resume || flags.smoke || flags.yes)) throw new UsageError('--status only reads the state: it takes no --resume, --smoke or --yes');
    const json = flags.json === true;
    let read: { file: string; tasks: Task[] };
    try {
      read = await readTaskFileOrExit(flags.file, process.cwd());
    } catch (e) {
      if (json && e instanceof UsageError) return fail(io, 'badTaskFile', e.message, 2);
      throw e;
    }
    const task = pickTask(read.tasks, positionals[0], read.file);
    const home = configHome(io.env);
    const { launchStatus, launchTask, LaunchError } = await import('../../app/launch/run');
    const now = () => Date.now() / 1000;
    if (flags.status) {
      const s = await launchStatus(home, read.file, task.name);
      if (!s) {
        if (json) return fail(io, 'noLaunch', `no launch of ${task.name} yet`, 1);
        io.stdout(`${task.name}: not launched yet (gpu-rent launch ${task.name})\n`);
        return 1;
      }
      io.stdout(json ? jsonForTerminal(stateJson(s, now()), 2) + '\n' : statusText(s, now()));
      return 0;
    }
    const { loadAccounts, connectorFor } = await import('./accounts');
    const ac = new AbortController();
    const onInt = () => {
      io.stderr(`\ngpu-rent launch: interrupted; the run on the box goes on. Continue with: gpu-rent launch ${task.name} --resume\n`);
      ac.abort();
    };
    process.on('SIGINT', onInt);
    const poll = Number(io.env.GPU_RENT_LAUNCH_POLL_MS);
    const settle = Number(io.env.GPU_RENT_SETTLE_INTERVAL_MS);
    const verify = Number(io.env.GPU_RENT_POWER_VERIFY_SECONDS);
    try {
      const s = await launchTask(
        { file: read.file, task, smoke: flags.smoke === true, resume: flags.resume === true, yes: flags.yes === true, catalog: loadCatalog(flags.catalog) },
        {
          configHome: home,
          connectOptions: () => connectOptions(flags, io),
          accounts: async () => (await loadAccounts(io).catch(() => [])).map((a) => ({ id: a.account.id, connector: connectorFor(a, io), powerActions: a.account.powerActions })),
          onEvent: (line) => io.stderr(forTerminal(`[${task.name} ${clock(now())}] ${line}`) + '\n'),
          confirmCreate: async (what) => {
            const a = await promptLine(`Create ${forTerminal(what)}? It bills from the moment it runs. (yes/no) `, false);
            return a !== null && /^y(es)?$/i.test(a.trim());
          },
          confirmRelease: async (label) => {
            const a = await promptLine(`Release ${forTerminal(label)}? Its disks and everything on them are deleted (the checkpoints are home, verified). (yes/no) `, false);
            return a !== null && /^y(es)?$/i.test(a.trim());
          },
          signal: ac.signal,
          ...(poll > 0 ? { pollMs: poll } : {}),
          ...(settle > 0 ? { settleIntervalMs: settle } : {}),
          ...(Number.isInteger(verify) && verify >= 1 ? { powerVerifySeconds: verify } : {}),
          ...(io.env.GPU_RENT_SPOT_METADATA ? { spotMetadataHost: io.env.GPU_RENT_SPOT_METADATA } : {}),
        },
      );
      if (json) io.stdout(jsonForTerminal(stateJson(s, now()), 2) + '\n');
      else io.stdout(statusText(s, now()));
      return s.phase === 'done' ? 0 : s.outcome?.kind === 'budget' || s.outcome?.kind === 'doctor' ? 3 : 1;
    } catch (e) {
      if (e instanceof LaunchError) {
        if (json) return fail(io, e.code, e.message, 1);
        io.stderr(`gpu-rent launch: ${forTerminal(e.message)}\n`);
        return 1;
      }
      if (ac.signal.aborted) return 130;
      throw e;
    } finally {
      process.off('SIGINT', onInt);
    }
  },
};
