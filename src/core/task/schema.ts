// The task file (`gpu-rent.yaml`) as the user writes it: snake_case keys, yuan, durations as
// "10m". parseTaskFile reads the text (the caller reads the file: core has no fs), checks it
// with zod and returns Task values in fen and seconds, or errors that name the line, column
// and field. The file may come from a cloned repository, so it is bounded like box text: size,
// task count, string lengths and YAML aliases are capped, patterns are linear, nothing throws.
import { isMap, isPair, isScalar, isSeq, Lexer, LineCounter, parseDocument, visit, type Node, type Pair } from 'yaml';
import { z } from 'zod';
import { BOUNDS } from '../bounds';
import { cardSpecs, findCard, normalizeCardName } from '../cards';
import { yuanToFen } from '../money';
import { TASK_ENDS, type Task, type TaskData, type TaskFileError, type TaskFileResult, type TaskInstance } from './types';

/** A task file larger than this is refused unread (a real one is a few hundred bytes). */
export const MAX_TASK_FILE_BYTES = 256 * 1024;
export const MAX_TASKS = 32;
/** A command line (run, resume, a setup step, a data fetch). */
export const MAX_COMMAND = 16 * 1024;
export const MAX_NAME = 64;
/** A path, local or on the box. */
export const MAX_PATH = 4096;
/** YAML aliases expanded when the document becomes values (yaml's maxAliasCount; a billion-laughs file needs thousands). */
export const MAX_ALIASES = 100;
/** Flow collections nested deeper than this are refused before the (recursive) YAML composer sees them. */
export const MAX_NESTING = 64;
/**
 * List items and mapping keys in the whole file (32 full tasks are well under 2,000): yaml takes
 * ~1.5 s to build a 120,000-item flow list and checks duplicate keys pairwise, so a file with more
 * is refused before it is built.
 */
export const MAX_ENTRIES = 4096;
const MAX_ERRORS = 50;
const MAX_LIST = 64;
const MAX_ENV_VARS = 256;

export const DEFAULT_CHECKPOINT_EVERY_SECONDS = 600;
export const MIN_CHECKPOINT_EVERY_SECONDS = 30;
export const DEFAULT_SMOKE_STEPS = 20;
export const DEFAULT_SMOKE_SECONDS = 300;
export const DEFAULT_RECLAIM_AFTER_SECONDS = 120;
export const MAX_NODES = 16;
export const MIN_RECLAIM_AFTER_SECONDS = 10;
/** The longest duration a task file may give: a year. */
const MAX_DURATION_SECONDS = 366 * 24 * 3600;

const NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const DURATION_RE = /^(?:(\d{1,6})h)?(?:(\d{1,7})m)?(?:(\d{1,9})s)?$/;
// Control characters (the point is to find them).
const CONTROL_RE = /[\u0000-\u001f\u007f]/;
const CONTROLS_RE = /[\u0000-\u001f\u007f]/g;
// A command may hold tabs and newlines, never NUL or other controls.
const COMMAND_CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
/** The ssh logins an `instance` may be: `ssh [-p N] user@host [-p N]`, `user@host[:port]`, `ssh://user@host[:port]`. */
const SSH_CMD_RE = /^ssh(?:\s+-p\s*(\d{1,5}))?\s+([A-Za-z0-9_][A-Za-z0-9._-]{0,63})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})(?:\s+-p\s*(\d{1,5}))?$/;
const SSH_URL_RE = /^ssh:\/\/([A-Za-z0-9_][A-Za-z0-9._-]{0,63})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})(?::(\d{1,5}))?\/?$/;
const SSH_AT_RE = /^([A-Za-z0-9_][A-Za-z0-9._-]{0,63})@([A-Za-z0-9][A-Za-z0-9.-]{0,252})(?::(\d{1,5}))?$/;

/** "90s", "10m", "1h30m", "2h" or a bare number of seconds → whole seconds; undefined when it is none of those. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') {
    return Number.isInteger(text) && text >= 0 && text <= MAX_DURATION_SECONDS ? text : undefined;
  }
  if (typeof text !== 'string' || text.length > 32) return undefined;
  const t = text.trim().toLowerCase();
  if (t === '') return undefined;
  if (/^\d{1,9}$/.test(t)) return parseDuration(Number(t));
  const m = DURATION_RE.exec(t);
  if (!m || (m[1] === undefined && m[2] === undefined && m[3] === undefined)) return undefined;
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return seconds <= MAX_DURATION_SECONDS ? seconds : undefined;
}

/** Whether `login` is one of the ssh login forms `instance` accepts (port 1–65535). */
export function isSshLogin(login: string): boolean {
  if (login.length > 400) return false;
  const m = SSH_CMD_RE.exec(login) ?? SSH_URL_RE.exec(login);
  const at = m ? undefined : SSH_AT_RE.exec(login);
  if (!m && !at) return false;
  const port = m ? (login.startsWith('ssh://') ? m[3] : (m[1] ?? m[4])) : at![3];
  if (port === undefined) return true;
  const n = Number(port);
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}

/** Looks like an ssh login (so a malformed one is reported as such, not taken for an instance name). */
function looksLikeSsh(s: string): boolean {
  return s.startsWith('ssh ') || s.startsWith('ssh://') || s.includes('@');
}

function twoDecimals(v: number): boolean {
  return Math.abs(v * 100 - Math.round(v * 100)) < 1e-6;
}

/** Shows a value the user wrote inside a message: quoted, and cut so a huge value cannot make a huge message. */
function shown(v: unknown): string {
  const s = typeof v === 'string' ? v : String(v);
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
}

const yuan = (what: string, max: number) =>
  z
    .number({ error: `${what} is a number of yuan` })
    .gt(0, { error: `${what} must be more than ¥0` })
    .max(max, { error: `${what} must be at most ¥${max.toLocaleString('en-US')}` })
    .refine(twoDecimals, { error: `${what} has at most 2 decimals (whole fen)` });

const DURATION_HELP = 'a duration like 90s, 10m, 1h30m, 2h, or a number of seconds';
const duration = (min: number) =>
  z
    .union([z.int().nonnegative(), z.string().max(32).regex(/^(\d+h)?(\d+m)?(\d+s)?$/, { error: `expected ${DURATION_HELP}` })], { error: `expected ${DURATION_HELP}` })
    .refine((v) => parseDuration(v) !== undefined, { error: 'a duration is at most a year' })
    .refine((v) => (parseDuration(v) ?? min) >= min, { error: `must be at least ${min} s` });

const command = (what: string) =>
  z
    .string({ error: `${what} is a shell command (a string)` })
    .min(1, { error: `${what} is empty` })
    .max(MAX_COMMAND, { error: `${what} is longer than ${MAX_COMMAND / 1024} KiB` })
    .refine((s) => s.trim() !== '', { error: `${what} is empty` })
    .refine((s) => !COMMAND_CONTROL_RE.test(s), { error: `${what} holds a control character` });

/**
 * Whether a local path stays inside the task file's folder: relative, and no `..` that climbs
 * out of it. A cloned repository's task file decides these paths, and the box's files are
 * written to the checkpoint folder: neither may reach ~/.ssh or anything else outside the repo.
 */
export function staysInside(p: string): boolean {
  if (p.startsWith('/') || p.startsWith('~') || p.startsWith('\\') || /^[A-Za-z]:/.test(p)) return false;
  let depth = 0;
  for (const part of p.split(/[/\\]/)) {
    if (part === '..') depth--;
    else if (part !== '' && part !== '.') depth++;
    if (depth < 0) return false;
  }
  return true;
}

const localPath = (what: string) =>
  z
    .string({ error: `${what} is a path (a string)` })
    .min(1, { error: `${what} is empty` })
    .max(MAX_PATH, { error: `${what} is longer than ${MAX_PATH} characters` })
    .refine((s) => !CONTROL_RE.test(s), { error: `${what} holds a control character` })
    .refine(staysInside, { error: `${what} must be inside the task file's folder (a relative path, no .. out of it, not absolute or ~)` });

/** A path on the box: absolute or ~/…, or (relativeOk) relative to the remote workdir; never `..`, never control characters. */
function remotePathProblem(p: string, relativeOk: boolean): string | undefined {
  if (CONTROL_RE.test(p)) return 'holds a control character';
  if (p.split('/').includes('..')) return 'has a ".." segment';
  if (!relativeOk && !(p.startsWith('/') || p.startsWith('~/'))) return 'must be absolute (/…) or start with ~/';
  if (p.startsWith('~') && !p.startsWith('~/') && p !== '~') return 'may start with ~/ but not ~user';
  return undefined;
}
const remotePath = (what: string, relativeOk: boolean) =>
  z
    .string({ error: `${what} is a path on the box (a string)` })
    .min(1, { error: `${what} is empty` })
    .max(MAX_PATH, { error: `${what} is longer than ${MAX_PATH} characters` })
    .superRefine((p, ctx) => {
      const problem = remotePathProblem(p, relativeOk);
      if (problem) ctx.addIssue({ code: 'custom', message: `${what} ${problem}`, input: p });
    });

const commandList = (what: string) =>
  z.union([command(what), z.array(command(what)).max(MAX_LIST, { error: `at most ${MAX_LIST} ${what} commands` })], {
    error: `${what} is a command or a list of commands`,
  });

function cardProblem(v: string | number): string | undefined {
  if (findCard(String(v))) return undefined;
  const norm = normalizeCardName(String(v).slice(0, 64));
  const near = [...cardSpecs]
    .map((c) => ({ id: c.id, d: Math.min(editDistance(norm, normalizeCardName(c.id)), ...c.aliases.map((a) => editDistance(norm, normalizeCardName(a)))) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, 5)
    .map((c) => c.id);
  return `unknown card ${shown(v)} (known: ${near.join(', ')}, …)`;
}

const card = z
  .union([z.string().max(MAX_NAME), z.number()], { error: 'a card is a name or number such as 4090, rtx3090, a100-80g' })
  .superRefine((v, ctx) => {
    const problem = cardProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: v });
  })
  .meta({ title: 'Card', description: 'A card id or alias: 4090, rtx4090, 3090, a100-80g, h100, l20, 910b …' });

function resourcesSchema(platformIds: readonly string[] | undefined) {
  const platform = z
    .string({ error: 'a platform is its catalog id (a string)' })
    .max(MAX_NAME)
    .superRefine((p, ctx) => {
      if (platformIds && !platformIds.includes(p)) {
        ctx.addIssue({ code: 'custom', message: `unknown platform ${shown(p)} (known: ${platformIds.slice(0, 8).join(', ')}${platformIds.length > 8 ? ', …' : ''})`, input: p });
      }
    });
  return z
    .strictObject({
      cards: z
        .union([card, z.array(card).max(16, { error: 'at most 16 cards' })], { error: 'cards is a card or a list of cards' })
        .optional()
        .meta({ title: 'Acceptable cards', description: 'Cards that will do, in order of preference (4090, rtx3090, a100-80g …). Leave out for any priced card.' }),
      gpus: z
        .int({ error: 'gpus is a whole number' })
        .min(BOUNDS.gpus.min, { error: 'gpus is at least 1' })
        .max(BOUNDS.gpus.max, { error: `gpus is at most ${BOUNDS.gpus.max} (${BOUNDS.gpus.why})` })
        .default(1)
        .meta({ title: 'GPUs per instance', description: 'Cards on one instance (1–8).' }),
      min_vram_gb: z
        .number({ error: 'min_vram_gb is a number of GB' })
        .gt(0, { error: 'min_vram_gb must be more than 0' })
        .max(BOUNDS.vramGb.max, { error: `min_vram_gb is at most ${BOUNDS.vramGb.max}` })
        .optional()
        .meta({ title: 'Minimum VRAM per card, GB', description: 'Only cards with at least this much memory each.' }),
      max_yuan_per_hour: yuan('max_yuan_per_hour', BOUNDS.yuanPerHour.max)
        .optional()
        .meta({ title: 'Most ¥ per hour', description: 'The instance may cost at most this many yuan per hour (2 decimals at most).' }),
      platforms: z
        .array(platform)
        .max(32, { error: 'at most 32 platforms' })
        .optional()
        .meta({ title: 'Platforms allowed', description: 'Catalog platform ids (autodl, aliyun, tencent …). Leave out for all.' }),
      spot: z
        .boolean({ error: 'spot is true or false' })
        .default(false)
        .meta({ title: 'Spot allowed', description: 'Allow spot (preemptible) instances; a reclaimed run resumes from its last checkpoint on another instance.' }),
    })
    .meta({ title: 'Resources', description: 'What to rent: cards, GPUs, memory, price, platforms, spot.' });
}

const instanceRef = z
  .string({ error: 'an instance is "new", an instance name or platform id, or an ssh login' })
  .min(1, { error: 'instance is empty' })
  .max(400, { error: 'instance is longer than 400 characters' })
  .superRefine((s, ctx) => {
    const t = s.trim();
    if (t === 'new') return;
    if (looksLikeSsh(t)) {
      if (!isSshLogin(t)) ctx.addIssue({ code: 'custom', message: `not an ssh login: ${shown(t)} (write "ssh -p 2222 root@host", "root@host:2222" or "ssh://root@host:22")`, input: s });
    } else if (t.length > MAX_NAME * 2 || CONTROL_RE.test(t) || t === '') {
      ctx.addIssue({ code: 'custom', message: `not an instance name or id: ${shown(t)}`, input: s });
    }
  });

const dataItem = z
  .strictObject({
    push: localPath('push').optional().meta({ title: 'Push', description: 'A local folder or file (relative to the task file) sent to `remote` on the box.' }),
    fetch: command('fetch').optional().meta({ title: 'Fetch', description: 'A command run on the box in `remote` that downloads the data (huggingface-cli download …, wget …).' }),
    remote: remotePath('remote', false).meta({ title: 'Where on the box', description: 'Absolute or ~/… (created).' }),
  })
  .superRefine((d, ctx) => {
    if ((d.push === undefined) === (d.fetch === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'a data entry has either push or fetch (one of them)', input: d });
    }
  })
  .meta({ title: 'Data', description: 'Data pushed from here or fetched on the box.' });

const setupSchema = z
  .union(
    [
      command('setup'),
      z.array(command('setup')).max(MAX_LIST, { error: `at most ${MAX_LIST} setup commands` }),
      z.strictObject({
        environment: localPath('environment').optional().meta({ title: 'Environment capture', description: 'A file written by `gpu-rent env capture`, rebuilt on the box before the commands.' }),
        commands: commandList('setup').optional().meta({ title: 'Setup commands', description: 'Run once in the remote workdir; each must exit 0.' }),
      }),
    ],
    { error: 'setup is a command, a list of commands, or {environment, commands}' },
  )
  .meta({ title: 'Setup', description: 'Run once on the box before the run: a command, a list, or {environment: env.json, commands: [...]}.' });

const envValue = z
  .union([z.string().max(MAX_COMMAND), z.number(), z.boolean()], { error: 'an environment value is a string, number or boolean' })
  .refine((v) => typeof v !== 'string' || !v.includes('\u0000'), { error: 'an environment value holds a NUL character' });

function taskSchema(platformIds: readonly string[] | undefined) {
  return z
    .strictObject({
      name: z
        .string({ error: 'name is a string' })
        .regex(NAME_RE, { error: 'name is 1–64 letters, digits, - or _' })
        .meta({ title: 'Task name', description: 'Letters, digits, - and _ (1–64). Names the job on the box and ~/gpu-rent/<name>.' }),
      resources: resourcesSchema(platformIds).optional(),
      instance: z
        .union([instanceRef, z.array(instanceRef).min(1, { error: 'instance list is empty' }).max(16, { error: 'at most 16 instances' })], {
          error: 'instance is "new", a name or platform id, an ssh login, or a list of those',
        })
        .default('new')
        .meta({ title: 'Instance', description: '"new", an instance name or platform id, an ssh login ("ssh -p 2222 root@host", "root@host:2222"), or a list of candidates in order.' }),
      workdir: localPath('workdir').default('.').meta({ title: 'Local workdir', description: 'The folder pushed to the box (relative to the task file); .gitignore and the secret scan apply.' }),
      remote_workdir: remotePath('remote_workdir', false)
        .optional()
        .meta({ title: 'Remote workdir', description: 'Where the workdir goes on the box (default ~/gpu-rent/<name>); absolute or ~/…, no "..".' }),
      data: z.array(dataItem).max(MAX_LIST, { error: `at most ${MAX_LIST} data entries` }).optional().meta({ title: 'Data', description: 'Data to push or fetch on the box before setup.' }),
      setup: setupSchema.optional(),
      run: command('run').meta({ title: 'Run command', description: 'The training command, run detached in the remote workdir.' }),
      env: z
        .record(z.string().regex(ENV_NAME_RE, { error: 'an environment variable name is letters, digits and _, not starting with a digit' }), envValue)
        .refine((e) => Object.keys(e).length <= MAX_ENV_VARS, { error: `at most ${MAX_ENV_VARS} environment variables` })
        .optional()
        .meta({ title: 'Environment variables', description: 'Set for setup and run (HF_ENDPOINT: https://hf-mirror.com …).' }),
      checkpoints: z
        .strictObject({
          remote: remotePath('checkpoints.remote', true).meta({ title: 'Checkpoint folder on the box', description: 'Relative to the remote workdir, or absolute / ~/….' }),
          local: localPath('checkpoints.local').meta({ title: 'Local checkpoint folder', description: 'Where checkpoints are synced (relative to the task file).' }),
          every: duration(MIN_CHECKPOINT_EVERY_SECONDS)
            .default(DEFAULT_CHECKPOINT_EVERY_SECONDS)
            .meta({ title: 'Sync interval', description: 'Time between verified syncs while the run goes: 10m, 1h, 90s or seconds (default 10m, at least 30s).' }),
        })
        .optional()
        .meta({ title: 'Checkpoints', description: 'The checkpoint folder synced home while the run goes.' }),
      resume: command('resume')
        .refine((s) => s.includes('{checkpoint}'), { error: 'resume must contain {checkpoint} (the last verified checkpoint’s path on the box)' })
        .optional()
        .meta({ title: 'Resume command', description: 'The run command after an interruption; {checkpoint} becomes the last verified checkpoint’s path. Needs checkpoints.' }),
      end: z
        .enum(TASK_ENDS as [string, ...string[]], { error: `end is one of ${TASK_ENDS.join(', ')}` })
        .default('none')
        .meta({ title: 'End action', description: 'After the run: none, no-gpu (AutoDL no-GPU mode), power-off, or release (asks unless --yes).' }),
      budget_yuan: yuan('budget_yuan', 10_000_000).optional().meta({ title: 'Budget, ¥', description: 'The most the whole launch may cost; it stops (syncing first) when the projected cost passes this.' }),
      smoke: z
        .strictObject({
          steps: z
            .int({ error: 'smoke.steps is a whole number' })
            .min(1, { error: 'smoke.steps is at least 1' })
            .max(BOUNDS.steps.max, { error: 'smoke.steps is at most a billion' })
            .optional().meta({ title: 'Smoke steps', description: 'Stop after this many training steps (default 20).' }),
          minutes: z
            .number({ error: 'smoke.minutes is a number' })
            .gt(0, { error: 'smoke.minutes must be more than 0' })
            .max(24 * 60, { error: 'smoke.minutes is at most a day (1440)' })
            .optional().meta({ title: 'Smoke minutes', description: 'Stop after this many minutes (default 5).' }),
        })
        .optional()
        .meta({ title: 'Small test (--smoke)', description: 'What `--smoke` stops at: steps, minutes, whichever first (default 20 steps or 5 minutes).' }),
      price_yuan_per_hour: yuan('price_yuan_per_hour', BOUNDS.yuanPerHour.max)
        .optional()
        .meta({ title: 'Price of an ssh-login instance, ¥/h', description: 'What the console shows for a box given as an ssh login; the meter and the budget use it.' }),
      create: z
        .strictObject({
          account: z.string({ error: 'create.account is an account id (a string)' }).min(1).max(MAX_NAME, { error: `create.account is at most ${MAX_NAME} characters` }).optional().meta({ title: 'Account', description: 'The platform account to create on (gpu-rent accounts list); default: each that can create.' }),
          spec: z.string({ error: 'create.spec is a string' }).min(1).max(MAX_NAME, { error: `create.spec is at most ${MAX_NAME} characters` }).regex(/^[\w.-]+$/, { error: 'create.spec is letters, digits, ., _ and -' }).optional().meta({ title: 'Spec or instance type', description: "The platform's spec id (AutoDL Pro) or instance type (阿里云, 腾讯云); default: the card from resources.cards." }),
          region: z.string({ error: 'create.region is a string' }).min(1).max(MAX_NAME, { error: `create.region is at most ${MAX_NAME} characters` }).regex(/^[\w.-]+$/, { error: 'create.region is letters, digits, ., _ and -' }).optional().meta({ title: 'Region', description: 'AutoDL Pro data center, 阿里云 region or zone, 腾讯云 zone.' }),
          image: z.string({ error: 'create.image is a string' }).min(1).max(200, { error: 'create.image is at most 200 characters' }).regex(/^[\w.:/-]+$/, { error: 'create.image is letters, digits, ., :, /, _ and -' }).optional().meta({ title: 'Image', description: 'The image id to create from (AutoDL Pro: base-image-… or image-…).' }),
          disk_gb: z.int({ error: 'create.disk_gb is a whole number' }).min(1, { error: 'create.disk_gb is at least 1' }).max(65536, { error: 'create.disk_gb is at most 65536' }).optional().meta({ title: 'Data disk, GB', description: 'Extra data disk to ask for.' }),
        })
        .optional()
        .meta({ title: 'Create (instance: new)', description: 'How `instance: new` creates: account, spec, region, image, data disk.' }),
      nodes: z
        .int({ error: 'nodes is a whole number' })
        .min(1, { error: 'nodes is at least 1' })
        .max(MAX_NODES, { error: `nodes is at most ${MAX_NODES}` })
        .default(1)
        .meta({ title: 'Nodes', description: 'Instances the run spans (multi-node): the first candidates in order, rank 0 first. More than 1 needs launcher.' }),
      launcher: z
        .enum(['torchrun', 'deepspeed', 'accelerate'], { error: 'launcher is torchrun, deepspeed or accelerate' })
        .optional()
        .meta({ title: 'Launcher', description: 'Wraps run in torchrun, deepspeed (--no_ssh, a hostfile) or accelerate with the node count, rank and rendezvous; needed for nodes > 1.' }),
      master_addr: z
        .string({ error: 'master_addr is an address (a string)' })
        .regex(/^[\w.:-]{1,253}$/, { error: 'master_addr is a host name or IP address' })
        .optional()
        .meta({ title: 'Rendezvous address', description: "The first node's address as the others reach it (default: its private address)." }),
      port: z
        .int({ error: 'port is a whole number' })
        .min(1024, { error: 'port is at least 1024' })
        .max(65535, { error: 'port is at most 65535' })
        .optional()
        .meta({ title: 'Rendezvous port', description: 'On the first node (default 29500).' }),
      reclaim_after: duration(MIN_RECLAIM_AFTER_SECONDS)
        .default(DEFAULT_RECLAIM_AFTER_SECONDS)
        .meta({ title: 'Reclaimed after', description: 'How long an ssh-login spot box may stop answering before it counts as reclaimed (default 2m).' }),
    })
    .superRefine((t, ctx) => {
      if (t.nodes > 1 && t.launcher === undefined) ctx.addIssue({ code: 'custom', path: ['nodes'], message: 'nodes > 1 needs launcher (torchrun, deepspeed or accelerate)', input: t.nodes });
      if (t.nodes > 1 && t.resources?.spot) ctx.addIssue({ code: 'custom', path: ['nodes'], message: 'a multi-node run on spot instances is not relaunched after a reclaim: use spot: false for nodes > 1', input: t.nodes });
      if (t.resume !== undefined && t.checkpoints === undefined) {
        ctx.addIssue({ code: 'custom', path: ['resume'], message: 'resume needs checkpoints (there is nothing to resume from)', input: t.resume });
      }
    })
    .meta({ title: 'gpu-rent task', description: 'One task: what to rent, push, set up and run, where checkpoints go and what happens at the end.' });
}

function fileSchema(task: ReturnType<typeof taskSchema>) {
  const many = z
    .strictObject({
      tasks: z
        .array(task)
        .min(1, { error: 'tasks is empty' })
        .max(MAX_TASKS, { error: `at most ${MAX_TASKS} tasks in one file` })
        .superRefine((tasks, ctx) => {
          const seen = new Set<string>();
          tasks.forEach((t, i) => {
            if (seen.has(t.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate task name ${shown(t.name)}`, input: t.name });
            seen.add(t.name);
          });
        })
        .meta({ title: 'Tasks', description: 'Several tasks in one file; names must be unique.' }),
    })
    .meta({ title: 'gpu-rent task file (several tasks)' });
  return many;
}

/** One task as the user writes it (snake_case, yuan, durations); the JSON Schema is made from this. */
export const taskInputSchema = taskSchema(undefined);
/** The whole file: one task, or `tasks: [...]`. */
export const taskFileInputSchema = z
  .union([taskInputSchema, fileSchema(taskInputSchema)])
  .meta({ title: 'gpu-rent task file', description: 'gpu-rent.yaml: one task (a mapping with name and run) or tasks: [ … ].' });

type TaskInput = z.output<typeof taskInputSchema>;

const TASK_KEYS = Object.keys(taskInputSchema.shape);
/** The keys of the mapping a field holds (through optional, default, list and union), for "did you mean". */
function mappingKeys(schema: z.core.$ZodType, depth = 0): string[] | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType; element?: z.core.$ZodType; options?: z.core.$ZodType[]; shape?: Record<string, unknown> };
  if (depth > 4) return undefined;
  if (def.type === 'object' && def.shape) return Object.keys(def.shape);
  if ((def.type === 'optional' || def.type === 'default') && def.innerType) return mappingKeys(def.innerType, depth + 1);
  if (def.type === 'array' && def.element) return mappingKeys(def.element, depth + 1);
  if (def.type === 'union' && def.options) return def.options.map((o) => mappingKeys(o, depth + 1)).find((k) => k !== undefined);
  return undefined;
}
/** Per field of a task that holds a mapping (resources, data, setup, checkpoints, smoke): its keys. */
const KEYS_BY_OBJECT: Record<string, readonly string[]> = Object.fromEntries(
  TASK_KEYS.flatMap((k) => {
    const keys = mappingKeys(taskInputSchema.shape[k as keyof typeof taskInputSchema.shape]);
    return keys ? [[k, keys]] : [];
  }),
);

/** Levenshtein distance, for "did you mean"; both strings are short (keys). */
function editDistance(a: string, b: string): number {
  if (a.length > 64 || b.length > 64) return Math.abs(a.length - b.length) + 64;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

function suggestion(key: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k);
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(best.length / 3)) ? `; did you mean ${best}?` : '';
}

type Path = readonly PropertyKey[];

function fieldName(path: Path): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : `${out === '' ? '' : '.'}${String(seg)}`;
  return out;
}

/** The node a path leads to in the YAML tree; the key's node when the value is missing (`run:`), the nearest parent key when the key is absent. */
function nodeAt(root: unknown, path: Path, lastKeyOnly = false): Node | undefined {
  let node = root as Node | null | undefined;
  let keyOfNode: Node | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (isMap(node)) {
      const pair = (node.items as Pair[]).find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return keyOfNode ?? node;
      keyOfNode = (pair.key as Node) ?? keyOfNode;
      if (lastKeyOnly && i === path.length - 1) return keyOfNode;
      const v = pair.value as Node | null;
      if (v === null || (isScalar(v) && v.value === null && (v.range?.[0] ?? 0) === (v.range?.[1] ?? 0))) return keyOfNode;
      node = v;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as Node | undefined;
      if (!item || isPair(item)) return node;
      node = item;
      keyOfNode = undefined;
    } else {
      return node ?? keyOfNode;
    }
  }
  return node ?? keyOfNode;
}

/** The parsed value at a path, and whether the key is there at all. */
function valueAt(root: unknown, path: Path): { present: boolean; value?: unknown } {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, seg)) return { present: false };
    v = (v as Record<PropertyKey, unknown>)[seg];
  }
  return { present: true, value: v };
}

function kindOf(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (v === null) return 'nothing';
  if (typeof v === 'object') return 'a mapping';
  return typeof v === 'string' ? `the text ${shown(v)}` : `${typeof v} ${shown(v)}`;
}

/** The words for one zod issue: "run is required", "gpus: expected int, got the text \"two\"", or the schema's own message. */
function issueMessage(iss: z.core.$ZodIssue, path: Path, root: unknown): string {
  if (iss.code === 'invalid_type') {
    const field = path.length ? String(path[path.length - 1]) : 'the file';
    const input = valueAt(root, path);
    if (!input.present) return `${field} is required`;
    if (input.value === null) return `${field} has no value`;
    if (iss.message.startsWith('Invalid input')) return `${field}: expected ${iss.expected}, got ${kindOf(input.value)}`;
  }
  if (iss.code === 'invalid_key') return 'an environment variable name is letters, digits and _, not starting with a digit';
  return iss.message;
}

export interface ParseTaskFileOptions {
  /** Catalog platform ids; when given, resources.platforms must name only these. */
  platformIds?: readonly string[];
}

/** Reads a gpu-rent.yaml; never throws: every problem is a TaskFileError with its line, column and field. */
export function parseTaskFile(text: string, opts: ParseTaskFileOptions = {}): TaskFileResult {
  try {
    return parseUnsafe(text, opts);
  } catch (e) {
    // A deep structure can still exhaust the stack in the YAML composer: one error, never a throw.
    return fail(1, 1, '', `the task file could not be read (${e instanceof RangeError ? 'nested too deeply' : 'unreadable'})`);
  }
}

function fail(line: number, column: number, field: string, message: string): TaskFileResult {
  return { ok: false, errors: [{ line, column, field, message }] };
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4; // a surrogate pair is one 4-byte character
      i++;
    } else n += 3;
  }
  return n;
}

function parseUnsafe(text: string, opts: ParseTaskFileOptions): TaskFileResult {
  if (typeof text !== 'string') return fail(1, 1, '', 'the task file is not text');
  if (text.length > MAX_TASK_FILE_BYTES || utf8Length(text) > MAX_TASK_FILE_BYTES) {
    return fail(1, 1, '', `the task file is larger than ${MAX_TASK_FILE_BYTES / 1024} KiB`);
  }
  const scanned = preScan(text);
  if (scanned) {
    let line = 1;
    let lineStart = 0;
    for (let i = text.indexOf('\n'); i !== -1 && i < scanned.offset; i = text.indexOf('\n', i + 1)) [line, lineStart] = [line + 1, i + 1];
    return fail(line, scanned.offset - lineStart + 1, '', scanned.message);
  }
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: false, version: '1.2', schema: 'core', strict: true, logLevel: 'error' });
  const at = (offset: number | undefined) => {
    const p = lc.linePos(Math.max(0, Math.min(offset ?? 0, text.length)));
    return { line: p.line, column: p.col };
  };
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.slice(0, MAX_ERRORS).map((e) => ({ ...at(e.pos[0]), field: '', message: `YAML: ${yamlMessage(e.message)}` })),
    };
  }
  let complexKey: Node | undefined;
  let unresolved: Node | undefined;
  let duplicate: Node | undefined;
  visit(doc, {
    // Duplicate keys are found here with a Set (yaml's own uniqueKeys compares every pair: 0.4 s on 4000 keys).
    Map(_, map) {
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        if (seen.has(String(pair.key.value))) {
          duplicate = pair.key;
          return visit.BREAK;
        }
        seen.add(String(pair.key.value));
      }
      return undefined;
    },
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return undefined;
      unresolved = alias;
      return visit.BREAK;
    },
    Pair(_, pair) {
      if (isScalar(pair.key) && (pair.key.value === null || typeof pair.key.value !== 'object')) return undefined;
      complexKey = (pair.key as Node | null) ?? undefined;
      return visit.BREAK;
    },
  });
  if (duplicate) return fail(at(duplicate.range?.[0]).line, at(duplicate.range?.[0]).column, '', 'YAML: a key appears twice in the same mapping');
  if (unresolved) return fail(at(unresolved.range?.[0]).line, at(unresolved.range?.[0]).column, '', 'YAML: an alias (*name) with no anchor (&name) before it');
  if (complexKey) return fail(at(complexKey.range?.[0]).line, at(complexKey.range?.[0]).column, '', 'a key is a plain word, not a list or mapping');
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    const msg = e instanceof ReferenceError && e.message.includes('Excessive alias count') ? `more than ${MAX_ALIASES} YAML aliases expanded` : 'the YAML could not be read';
    return fail(1, 1, '', msg);
  }
  if (value === null || value === undefined) return fail(1, 1, '', 'the task file is empty (write name: and run:, or tasks: [...])');
  if (typeof value !== 'object' || Array.isArray(value)) {
    return fail(at(doc.contents?.range?.[0]).line, at(doc.contents?.range?.[0]).column, '', 'a task file is a mapping (name:, run: …) or tasks: [...]');
  }

  const multi = Object.prototype.hasOwnProperty.call(value, 'tasks');
  const task = opts.platformIds ? taskSchema(opts.platformIds) : taskInputSchema;
  const result = multi ? fileSchema(task).safeParse(value) : task.safeParse(value);
  if (!result.success) {
    const errors: TaskFileError[] = [];
    for (const iss of result.error.issues.flatMap((i) => narrowUnion(i, 0))) {
      if (errors.length >= MAX_ERRORS) break;
      if (iss.code === 'unrecognized_keys') {
        const objectKind = iss.path.filter((s) => typeof s === 'string' && s !== 'tasks').slice(-1)[0];
        // A task's own keys (and, at the top of a one-task file, `tasks`), or the keys of the mapping the key sits in.
        const known = typeof objectKind === 'string' ? (KEYS_BY_OBJECT[objectKind] ?? TASK_KEYS) : iss.path.length === 0 ? [...TASK_KEYS, 'tasks'] : TASK_KEYS;
        for (const key of iss.keys.slice(0, MAX_ERRORS)) {
          const path = [...iss.path, key];
          const node = nodeAt(doc.contents, path, true);
          const hint = multi && iss.path.length === 0 ? '; a file with tasks: holds only tasks' : suggestion(key, known);
          errors.push({ ...at(node?.range?.[0]), field: fieldName(path), message: `unknown key ${shown(key)}${hint}` });
        }
        continue;
      }
      const field = fieldName(iss.path);
      if (errors.some((e) => e.field === field)) continue; // one problem per field: the first zod found
      const node = nodeAt(doc.contents, iss.path, iss.code === 'invalid_key');
      errors.push({ ...at(node?.range?.[0]), field, message: issueMessage(iss, iss.path, value) });
    }
    errors.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, errors };
  }
  const inputs: TaskInput[] = multi ? (result.data as { tasks: TaskInput[] }).tasks : [result.data as TaskInput];
  return { ok: true, tasks: inputs.map(toTask) };
}

/**
 * A union's issue ("setup is a command, a list of commands, or {environment, commands}") is replaced
 * by the issues of the one branch whose type matched, so the error points into it (setup.commands[1]).
 */
function narrowUnion(iss: z.core.$ZodIssue, depth: number): z.core.$ZodIssue[] {
  if (iss.code !== 'invalid_union' || depth > 8) return [iss];
  const matched = iss.errors.filter((branch) => !branch.every((b) => b.code === 'invalid_type' && b.path.length === 0));
  if (matched.length !== 1) return [iss];
  return matched[0]!.flatMap((b) => narrowUnion({ ...b, path: [...iss.path, ...b.path] } as z.core.$ZodIssue, depth + 1));
}

/**
 * One pass of yaml's lexer (iterative, linear) before the document is built: a file with more alias
 * nodes than MAX_ALIASES, flow collections nested deeper than MAX_NESTING or more than MAX_ENTRIES
 * items and keys is refused there, so neither a billion-laughs file, 100k brackets nor a 100k-item
 * list reaches the composer (which takes seconds on them and recurses). The offset is where the
 * limit was crossed.
 */
function preScan(text: string): { offset: number; message: string } | undefined {
  let offset = 0;
  let aliases = 0;
  let depth = 0;
  let entries = 0;
  let indicatorsOnLine = 0; // `- - - 1` nests block lists on one line, with no bracket to count
  for (const token of new Lexer().lex(text)) {
    if (token.includes('\n')) indicatorsOnLine = 0;
    else if ((token === '-' || token === '?') && ++indicatorsOnLine > MAX_NESTING) {
      return { offset, message: `lists or mappings nested more than ${MAX_NESTING} deep` };
    }
    // The lexer's own markers (document, scalar, flow error) are not source text.
    if (token !== '\u0002' && token !== '\u001f' && token !== '\u0018') offset += token.length;
    if (token.startsWith('*')) {
      if (++aliases > MAX_ALIASES) return { offset: offset - token.length, message: `more than ${MAX_ALIASES} YAML aliases` };
    } else if (token === '[' || token === '{') {
      if (++depth > MAX_NESTING) return { offset: offset - 1, message: `lists or mappings nested more than ${MAX_NESTING} deep` };
    } else if (token === ']' || token === '}') depth = Math.max(0, depth - 1);
    else if (token === ',' || token === '-' || token === ':' || token === '?') {
      if (++entries > MAX_ENTRIES) return { offset: offset - 1, message: `more than ${MAX_ENTRIES} list items and mapping keys` };
    }
  }
  return undefined;
}

function yamlMessage(message: string): string {
  const firstLine = (message.split('\n')[0] ?? '').replace(CONTROLS_RE, '?');
  const cut = firstLine.length > 160 ? `${firstLine.slice(0, 160)}…` : firstLine;
  return cut;
}

const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

function toInstance(ref: string): TaskInstance {
  const t = ref.trim();
  if (t === 'new') return { kind: 'new' };
  if (looksLikeSsh(t)) return { kind: 'ssh', login: t };
  return { kind: 'named', ref: t };
}

function toTask(t: TaskInput): Task {
  const r = t.resources;
  const setup = t.setup;
  const setupObject = setup !== undefined && typeof setup === 'object' && !Array.isArray(setup) ? setup : undefined;
  const data: TaskData[] = (t.data ?? []).map((d) => ({ ...(d.push !== undefined ? { push: d.push } : {}), ...(d.fetch !== undefined ? { fetch: d.fetch } : {}), remote: d.remote }));
  const smoke = t.smoke;
  const task: Task = {
    name: t.name,
    resources: {
      cards: [...new Set(asList(r?.cards).map((c) => findCard(String(c))!.id))],
      gpus: r?.gpus ?? 1,
      ...(r?.min_vram_gb !== undefined ? { minVramGb: r.min_vram_gb } : {}),
      ...(r?.max_yuan_per_hour !== undefined ? { maxFenPerHour: yuanToFen(r.max_yuan_per_hour) } : {}),
      platforms: [...new Set(r?.platforms ?? [])],
      spot: r?.spot ?? false,
    },
    instances: asList(t.instance).map(toInstance),
    workdir: t.workdir,
    remoteWorkdir: t.remote_workdir ?? `~/gpu-rent/${t.name}`,
    data,
    setup: setupObject ? asList(setupObject.commands) : asList(setup as string | string[] | undefined),
    run: t.run,
    env: Object.fromEntries(Object.entries(t.env ?? {}).map(([k, v]) => [k, String(v)])),
    end: t.end as Task['end'],
    smoke: smoke === undefined || (smoke.steps === undefined && smoke.minutes === undefined)
      ? { steps: DEFAULT_SMOKE_STEPS, seconds: DEFAULT_SMOKE_SECONDS }
      : { ...(smoke.steps !== undefined ? { steps: smoke.steps } : {}), ...(smoke.minutes !== undefined ? { seconds: Math.round(smoke.minutes * 60) } : {}) },
    reclaimAfterSeconds: parseDuration(t.reclaim_after)!,
  };
  if (setupObject?.environment !== undefined) task.environment = setupObject.environment;
  if (t.checkpoints) task.checkpoints = { remote: t.checkpoints.remote, local: t.checkpoints.local, everySeconds: parseDuration(t.checkpoints.every)! };
  if (t.resume !== undefined) task.resume = t.resume;
  if (t.budget_yuan !== undefined) task.budgetFen = yuanToFen(t.budget_yuan);
  if (t.price_yuan_per_hour !== undefined) task.priceFenPerHour = yuanToFen(t.price_yuan_per_hour);
  if (t.nodes > 1) task.nodes = t.nodes;
  if (t.launcher !== undefined) task.launcher = t.launcher;
  if (t.master_addr !== undefined) task.masterAddr = t.master_addr;
  if (t.port !== undefined) task.rendezvousPort = t.port;
  if (t.create) task.create = { ...(t.create.account !== undefined ? { account: t.create.account } : {}), ...(t.create.spec !== undefined ? { spec: t.create.spec } : {}), ...(t.create.region !== undefined ? { region: t.create.region } : {}), ...(t.create.image !== undefined ? { image: t.create.image } : {}), ...(t.create.disk_gb !== undefined ? { diskGb: t.create.disk_gb } : {}) };
  return task;
}
