// The task file's shape as zod schemas: one task (what to rent, push, set up and run, where
// checkpoints go, what happens at the end) and a file of several. The JSON Schema in schemas/ is
// generated from taskFileInputSchema (scripts/task-schema.ts); schema.ts reads a file with them.
import { z } from 'zod';
import { BOUNDS } from '../bounds';
import { card, command, commandList, CONTROL_RE, DEFAULT_CHECKPOINT_EVERY_SECONDS, DEFAULT_RECLAIM_AFTER_SECONDS, duration, ENV_NAME_RE, isSshLogin, localPath, looksLikeSsh, MAX_COMMAND, MAX_ENV_VARS, MAX_LIST, MAX_NAME, MAX_NODES, MAX_TASKS, MIN_CHECKPOINT_EVERY_SECONDS, MIN_RECLAIM_AFTER_SECONDS, NAME_RE, remotePath, shown, yuan } from './fields';
import { TASK_ENDS } from './types';

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

export function taskSchema(platformIds: readonly string[] | undefined) {
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

export function fileSchema(task: ReturnType<typeof taskSchema>) {
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

export type TaskInput = z.output<typeof taskInputSchema>;
