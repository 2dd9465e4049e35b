// The task file's shape as zod schemas: one task (what to rent, push, set up and run, where
// checkpoints go, what happens at the end) and a file of several. The JSON Schema in schemas/ is
// generated from taskFileInputSchema (scripts/task-schema.ts); schema.ts reads a file with them.
import { z } from 'zod';
import { BOUNDS } from '../bounds';
import { card, cloudId, command, commandList, publicKeyPath, storeRef, CONTROL_RE, DEFAULT_CHECKPOINT_EVERY_SECONDS, DEFAULT_RECLAIM_AFTER_SECONDS, duration, ENV_NAME_RE, isSshLogin, localPath, looksLikeSsh, MAX_COMMAND, MAX_ENV_VARS, MAX_LIST, MAX_NAME, MAX_NODES, MAX_TASKS, MIN_CHECKPOINT_EVERY_SECONDS, MIN_RECLAIM_AFTER_SECONDS, NAME_RE, remotePath, shown, yuan } from './fields';
import { asMessage, said } from './problems';
import { checkpointPatternProblem, MAX_CHECKPOINT_PATTERN_LENGTH, MAX_CHECKPOINT_PATTERNS } from '../checkpoints';
import { TASK_ENDS } from './types';
import { checkProgressPattern } from '../progress/userPattern';
import { MIRROR_URL_RE } from './mirrors';
import { matrixSchema, maxSweepNameLength, MAX_SWEEP_RUNS, sweepFieldProblems } from './sweep';

function resourcesSchema(platformIds: readonly string[] | undefined) {
  const platform = z
    .string(said({ code: 'not-platform' }))
    .max(MAX_NAME)
    .superRefine((p, ctx) => {
      if (platformIds && !platformIds.includes(p)) {
        ctx.addIssue({ code: 'custom', message: asMessage({ code: 'unknown-platform', platform: shown(p), known: platformIds.slice(0, 8), more: platformIds.length > 8 }), input: p });
      }
    });
  return z
    .strictObject({
      cards: z
        .union([card, z.array(card).max(16, said({ code: 'too-many', of: 'cards', max: 16 }))], said({ code: 'not-cards' }))
        .optional()
        .meta({ title: 'Acceptable cards', description: 'Cards that will do, in order of preference (4090, rtx3090, a100-80g …). Leave out for any priced card.' }),
      gpus: z
        .int(said({ code: 'not-whole', what: 'gpus' }))
        .min(BOUNDS.gpus.min, said({ code: 'at-least', what: 'gpus', min: BOUNDS.gpus.min }))
        .max(BOUNDS.gpus.max, said({ code: 'gpus-too-many', max: BOUNDS.gpus.max }))
        .default(1)
        .meta({ title: 'GPUs per instance', description: 'Cards on one instance (1–8).' }),
      min_vram_gb: z
        .number(said({ code: 'not-gb', what: 'min_vram_gb' }))
        .gt(0, said({ code: 'not-positive', what: 'min_vram_gb' }))
        .max(BOUNDS.vramGb.max, said({ code: 'at-most', what: 'min_vram_gb', max: BOUNDS.vramGb.max }))
        .optional()
        .meta({ title: 'Minimum VRAM per card, GB', description: 'Only cards with at least this much memory each.' }),
      max_yuan_per_hour: yuan('max_yuan_per_hour', BOUNDS.yuanPerHour.max)
        .optional()
        .meta({ title: 'Most ¥ per hour', description: 'The instance may cost at most this many yuan per hour (2 decimals at most).' }),
      platforms: z
        .array(platform)
        .max(32, said({ code: 'too-many', of: 'platforms', max: 32 }))
        .optional()
        .meta({ title: 'Platforms allowed', description: 'Catalog platform ids (autodl, aliyun, tencent …). Leave out for all.' }),
      spot: z
        .boolean(said({ code: 'not-boolean', what: 'spot' }))
        .default(false)
        .meta({ title: 'Spot allowed', description: 'Allow spot (preemptible) instances; a reclaimed run resumes from its last checkpoint on another instance.' }),
    })
    .meta({ title: 'Resources', description: 'What to rent: cards, GPUs, memory, price, platforms, spot.' });
}

const checkpointPattern = z.string(said({ code: 'bad-checkpoint-pattern', problem: 'not-glob' })).superRefine((p, ctx) => {
  const problem = checkpointPatternProblem(p);
  if (problem) ctx.addIssue({ code: 'custom', message: asMessage({ code: 'bad-checkpoint-pattern', problem, max: MAX_CHECKPOINT_PATTERN_LENGTH }), input: p });
});

const instanceRef = z
  .string(said({ code: 'not-instance' }))
  .min(1, said({ code: 'empty', what: 'instance' }))
  .max(400, said({ code: 'longer-chars', what: 'instance', max: 400 }))
  .superRefine((s, ctx) => {
    const t = s.trim();
    if (t === 'new') return;
    if (looksLikeSsh(t)) {
      if (!isSshLogin(t)) ctx.addIssue({ code: 'custom', message: asMessage({ code: 'not-ssh-login', login: shown(t) }), input: s });
    } else if (t.length > MAX_NAME * 2 || CONTROL_RE.test(t) || t === '') {
      ctx.addIssue({ code: 'custom', message: asMessage({ code: 'not-instance-name', name: shown(t) }), input: s });
    }
  });

const dataItem = z
  .strictObject({
    push: localPath('push').optional().meta({ title: 'Push', description: 'A local folder or file (relative to the task file) sent to `remote` on the box.' }),
    fetch: command('fetch').optional().meta({ title: 'Fetch', description: 'A command run on the box in `remote` that downloads the data (huggingface-cli download …, wget …).' }),
    from: storeRef('data.from').optional().meta({ title: 'From a store', description: 'NAME/PREFIX in a store (gpu-rent storage add; staged with gpu-rent storage push while no GPU bills): the box pulls it into `remote` itself with short-lived presigned URLs, each file verified by SHA-256; no key on the box.' }),
    remote: remotePath('remote', false).meta({ title: 'Where on the box', description: 'Absolute or ~/… (created).' }),
  })
  .superRefine((d, ctx) => {
    if ([d.push, d.fetch, d.from].filter((x) => x !== undefined).length !== 1) {
      ctx.addIssue({ code: 'custom', path: [], message: asMessage({ code: 'data-push-or-fetch' }), input: d });
    }
  })
  .meta({ title: 'Data', description: 'Data pushed from here, fetched on the box, or pulled by the box from a store.' });

const setupSchema = z
  .union(
    [
      command('setup'),
      z.array(command('setup')).max(MAX_LIST, said({ code: 'too-many', of: 'commands', max: MAX_LIST, what: 'setup' })),
      z.strictObject({
        environment: localPath('environment').optional().meta({ title: 'Environment capture', description: 'A file written by `gpu-rent env capture`, rebuilt on the box before the commands.' }),
        commands: commandList('setup').optional().meta({ title: 'Setup commands', description: 'Run once in the remote workdir; each must exit 0.' }),
      }),
    ],
    said({ code: 'not-setup' }),
  )
  .meta({ title: 'Setup', description: 'Run once on the box before the run: a command, a list, or {environment: env.json, commands: [...]}.' });

const envValue = z
  .union([z.string().max(MAX_COMMAND), z.number(), z.boolean()], said({ code: 'not-env-value' }))
  .refine((v) => typeof v !== 'string' || !v.includes('\u0000'), said({ code: 'env-value-nul' }));

/** A mirror part: one of the words, or an http(s) URL. */
function mirrorChoice(what: string, words: [string, string]) {
  return z.string(said({ code: 'bad-mirror', what, choices: words, url: true })).refine((v) => words.includes(v) || MIRROR_URL_RE.test(v), said({ code: 'bad-mirror', what, choices: words, url: true }));
}

export function taskSchema(platformIds: readonly string[] | undefined) {
  return z
    .strictObject({
      name: z
        .string(said({ code: 'not-string', what: 'name' }))
        .regex(NAME_RE, said({ code: 'bad-name' }))
        .meta({ title: 'Task name', description: 'Letters, digits, - and _ (1–64). Names the job on the box and ~/gpu-rent/<name>.' }),
      resources: resourcesSchema(platformIds).optional(),
      instance: z
        .union([instanceRef, z.array(instanceRef).min(1, said({ code: 'instance-list-empty' })).max(16, said({ code: 'too-many', of: 'instances', max: 16 }))], said({ code: 'not-instances' }))
        .default('new')
        .meta({ title: 'Instance', description: '"new", an instance name or platform id, an ssh login ("ssh -p 2222 root@host", "root@host:2222"), or a list of candidates in order.' }),
      workdir: localPath('workdir').default('.').meta({ title: 'Local workdir', description: 'The folder pushed to the box (relative to the task file); .gitignore and the secret scan apply.' }),
      remote_workdir: remotePath('remote_workdir', false)
        .optional()
        .meta({ title: 'Remote workdir', description: 'Where the workdir goes on the box (default ~/gpu-rent/<name>); absolute or ~/…, no "..".' }),
      data: z.array(dataItem).max(MAX_LIST, said({ code: 'too-many', of: 'data', max: MAX_LIST })).optional().meta({ title: 'Data', description: 'Data to push or fetch on the box before setup.' }),
      setup: setupSchema.optional(),
      run: command('run').meta({ title: 'Run command', description: 'The training command, run detached in the remote workdir.' }),
      env: z
        .record(z.string().regex(ENV_NAME_RE, said({ code: 'env-name' })), envValue)
        .refine((e) => Object.keys(e).length <= MAX_ENV_VARS, said({ code: 'too-many', of: 'env', max: MAX_ENV_VARS }))
        .optional()
        .meta({ title: 'Environment variables', description: 'Set for setup and run (HF_ENDPOINT: https://hf-mirror.com …).' }),
      mirrors: z
        .union(
          [
            z.enum(['auto', 'off'], said({ code: 'bad-mirror', what: 'mirrors', choices: ['auto', 'off'], url: false })),
            z.strictObject({
              hf_endpoint: mirrorChoice('mirrors.hf_endpoint', ['auto', 'direct']).optional().meta({ title: 'HF_ENDPOINT', description: 'auto (hf-mirror when Hugging Face is not reached from the box, or far slower), direct (none set), or a URL.' }),
              pip_index: mirrorChoice('mirrors.pip_index', ['auto', 'default']).optional().meta({ title: 'pip index', description: "auto (a Chinese mirror when the default index is not reached, or far slower), default (none set), or a URL (PIP_INDEX_URL)." }),
              turbo: z.enum(['auto', 'off'], said({ code: 'bad-mirror', what: 'mirrors.turbo', choices: ['auto', 'off'], url: false })).optional().meta({ title: 'AutoDL network turbo', description: "auto: AutoDL's /etc/network_turbo is sourced in the setup step's shell when the box has it (never for the run); off: never." }),
            }),
          ],
          said({ code: 'bad-mirror', what: 'mirrors', choices: ['auto', 'off'], url: false }),
        )
        .optional()
        .meta({
          title: 'Mirrors for setup',
          description:
            "What the setup step (data fetches, setup commands) uses to download: auto (default) probes the box and sets HF_ENDPOINT and PIP_INDEX_URL to mirrors where the direct hosts are not reached, and sources AutoDL's /etc/network_turbo for setup only; off sets nothing; or per part. HF_ENDPOINT or PIP_INDEX_URL in env always win.",
        }),
      checkpoints: z
        .strictObject({
          remote: remotePath('checkpoints.remote', true).meta({ title: 'Checkpoint folder on the box', description: 'Relative to the remote workdir, or absolute / ~/….' }),
          local: localPath('checkpoints.local').meta({ title: 'Local checkpoint folder', description: 'Where checkpoints are synced (relative to the task file).' }),
          every: duration(MIN_CHECKPOINT_EVERY_SECONDS)
            .default(DEFAULT_CHECKPOINT_EVERY_SECONDS)
            .meta({ title: 'Sync interval', description: 'Time between verified syncs while the run goes: 10m, 1h, 90s or seconds (default 10m, at least 30s).' }),
          pattern: z
            .union([checkpointPattern, z.array(checkpointPattern).min(1, said({ code: 'bad-checkpoint-pattern', problem: 'empty' })).max(MAX_CHECKPOINT_PATTERNS, said({ code: 'bad-checkpoint-pattern', problem: 'too-many', max: MAX_CHECKPOINT_PATTERNS }))], said({ code: 'bad-checkpoint-pattern', problem: 'not-glob' }))
            .optional()
            .meta({
              title: 'What counts as a checkpoint',
              description:
                'Globs, relative to the checkpoint folder (* within a name, ** across folders; without / a name at any depth): checkpoint-*, *.ckpt, weights/last.pt. Default: HF checkpoint-N/, DeepSpeed global_stepN/, step-N/epoch-N, Lightning *.ckpt, weight files with a step number, YOLO last.pt. Logs never count.',
            }),
          store: storeRef('checkpoints.store')
            .optional()
            .meta({ title: 'Store', description: "NAME/PREFIX in a store (gpu-rent storage add): the box uploads each complete checkpoint there itself, with a grant limited to this prefix, the sizes and the run's time (no key on the box), so checkpoints are safe while the laptop sleeps." }),
        })
        .optional()
        .meta({ title: 'Checkpoints', description: 'The checkpoint folder synced home while the run goes.' }),
      resume: command('resume')
        .refine((s) => s.includes('{checkpoint}'), said({ code: 'resume-no-placeholder' }))
        .optional()
        .meta({ title: 'Resume command', description: 'The run command after an interruption; {checkpoint} becomes the last verified checkpoint’s path. Needs checkpoints.' }),
      end: z
        .enum(TASK_ENDS as [string, ...string[]], said({ code: 'not-end', ends: [...TASK_ENDS] }))
        .default('none')
        .meta({ title: 'End action', description: 'After the run: none, no-gpu (AutoDL no-GPU mode), power-off, or release (asks unless --yes).' }),
      end_unattended: z
        .enum(['power-off', 'none'], said({ code: 'not-end', ends: ['power-off', 'none'] }))
        .optional()
        .meta({
          title: 'End while the laptop is away',
          description:
            "What the box does by itself when the run ends and this laptop is asleep or offline: power-off (AutoDL as root: its shutdown stops the GPU billing; an SSH login as root) or none (it keeps billing until you are back). 阿里云/腾讯云 keep billing after a shutdown from inside, so there the box never pretends. No-GPU mode and release need the platform's API and are done when the laptop is back.",
        }),
      progress: z
        .string(said({ code: 'not-string', what: 'progress' }))
        .superRefine((s, ctx) => {
          const c = checkProgressPattern(s);
          if (!c.ok) ctx.addIssue({ code: 'custom', message: asMessage({ code: 'bad-progress-pattern', problem: c.code, detail: c.detail }) });
        })
        .optional()
        .meta({
          title: 'Progress pattern',
          description:
            'Teach the reader a log it cannot read: a regular expression (JavaScript syntax) with named groups step, total, loss, epoch, tried on every log line first, e.g. ^\\[ *(?<step>\\d+) \\| *(?<total>\\d+) \\] (?<loss>\\S+). Refused if it could take super-linear time on a long line (use [^|]* or .{0,200} rather than .*, or anchor with ^).',
        }),
      notify: z
        .array(z.string(said({ code: 'not-string', what: 'notify' })).regex(/^[A-Za-z0-9._-]{1,40}$/, said({ code: 'bad-id-chars', what: 'notify' })), said({ code: 'not-string', what: 'notify' }))
        .max(16, said({ code: 'too-many', of: 'channels', max: 16 }))
        .optional()
        .meta({ title: 'Messages', description: 'Message channels (gpu-rent notify add NAME …, or VS Code settings) told once when the run finishes, fails, diverges, stops at its budget, loses its spot instance or is still billing.' }),
      budget_yuan: yuan('budget_yuan', 10_000_000).optional().meta({ title: 'Budget, ¥', description: 'The most the whole launch may cost; it stops (syncing first) when the projected cost passes this.' }),
      smoke: z
        .strictObject({
          steps: z
            .int(said({ code: 'not-whole', what: 'smoke.steps' }))
            .min(1, said({ code: 'at-least', what: 'smoke.steps', min: 1 }))
            .max(BOUNDS.steps.max, said({ code: 'smoke-steps-too-many' }))
            .optional().meta({ title: 'Smoke steps', description: 'Stop after this many training steps (default 20).' }),
          minutes: z
            .number(said({ code: 'not-number', what: 'smoke.minutes' }))
            .gt(0, said({ code: 'not-positive', what: 'smoke.minutes' }))
            .max(24 * 60, said({ code: 'smoke-minutes-too-many' }))
            .optional().meta({ title: 'Smoke minutes', description: 'Stop after this many minutes (default 5).' }),
        })
        .optional()
        .meta({ title: 'Small test (--smoke)', description: 'What `--smoke` stops at: steps, minutes, whichever first (default 20 steps or 5 minutes).' }),
      price_yuan_per_hour: yuan('price_yuan_per_hour', BOUNDS.yuanPerHour.max)
        .optional()
        .meta({ title: 'Price of an ssh-login instance, ¥/h', description: 'What the console shows for a box given as an ssh login; the meter and the budget use it.' }),
      create: z
        .strictObject({
          account: z.string(said({ code: 'not-account' })).min(1, said({ code: 'empty', what: 'create.account' })).max(MAX_NAME, said({ code: 'at-most-chars', what: 'create.account', max: MAX_NAME })).optional().meta({ title: 'Account', description: 'The platform account to create on (gpu-rent accounts list); default: each that can create.' }),
          spec: z.string(said({ code: 'not-string', what: 'create.spec' })).min(1, said({ code: 'empty', what: 'create.spec' })).max(MAX_NAME, said({ code: 'at-most-chars', what: 'create.spec', max: MAX_NAME })).regex(/^[\w.-]+$/, said({ code: 'bad-id-chars', what: 'create.spec' })).optional().meta({ title: 'Spec or instance type', description: "The platform's spec id (AutoDL Pro) or instance type (阿里云, 腾讯云); default: the card from resources.cards." }),
          region: z.string(said({ code: 'not-string', what: 'create.region' })).min(1, said({ code: 'empty', what: 'create.region' })).max(MAX_NAME, said({ code: 'at-most-chars', what: 'create.region', max: MAX_NAME })).regex(/^[\w.-]+$/, said({ code: 'bad-id-chars', what: 'create.region' })).optional().meta({ title: 'Region', description: 'AutoDL Pro data center, 阿里云 region or zone, 腾讯云 zone.' }),
          image: z.string(said({ code: 'not-string', what: 'create.image' })).min(1, said({ code: 'empty', what: 'create.image' })).max(200, said({ code: 'at-most-chars', what: 'create.image', max: 200 })).regex(/^[\w.:/-]+$/, said({ code: 'bad-image-chars' })).optional().meta({ title: 'Image', description: 'The image id to create from (AutoDL Pro: base-image-… or image-…).' }),
          disk_gb: z.int(said({ code: 'not-whole', what: 'create.disk_gb' })).min(1, said({ code: 'at-least', what: 'create.disk_gb', min: 1 })).max(65536, said({ code: 'at-most', what: 'create.disk_gb', max: 65536 })).optional().meta({ title: 'Data disk, GB', description: 'Extra data disk to ask for.' }),
          // The cloud create's network and login, as `gpu-rent create` takes them (--vswitch, --security-group, --vpc, --subnet, --bandwidth, --ssh-key, --spot-reclaim).
          vswitch: cloudId('create.vswitch').meta({ title: 'vSwitch (阿里云)', description: "阿里云: the vSwitch (its zone and VPC) RunInstances needs; without it the create is refused before anything bills." }),
          security_group: cloudId('create.security_group').meta({ title: 'Security group (阿里云, 腾讯云)', description: 'Default: gpu-rent-ssh-only, opening SSH (TCP 22) only, made at the first create and reused.' }),
          vpc: cloudId('create.vpc').meta({ title: 'VPC (腾讯云)', description: '腾讯云: the VPC, with subnet (default: the default VPC).' }),
          subnet: cloudId('create.subnet').meta({ title: 'Subnet (腾讯云)', description: '腾讯云: the subnet of vpc.' }),
          bandwidth: z.int(said({ code: 'not-whole', what: 'create.bandwidth' })).min(1, said({ code: 'at-least', what: 'create.bandwidth', min: 1 })).max(100, said({ code: 'at-most', what: 'create.bandwidth', max: 100 })).optional().meta({ title: 'Public bandwidth, Mbit/s (阿里云, 腾讯云)', description: 'Public bandwidth out, billed by traffic (default 10 Mbit/s; 0 would give no public address).' }),
          ssh_key: publicKeyPath('create.ssh_key').optional().meta({ title: 'SSH public key (阿里云, 腾讯云)', description: 'The OpenSSH public key (.pub, relative to the task file or ~/…, inside your home) imported as the login key pair; default ~/.ssh/id_ed25519.pub, id_ecdsa.pub, id_rsa.pub (腾讯云: RSA only).' }),
          spot_reclaim: z.enum(['stop', 'terminate'], said({ code: 'not-spot-reclaim' })).optional().meta({ title: 'Spot reclaim (阿里云, 腾讯云)', description: 'With resources.spot: what a reclaim does: stop (阿里云 default: stopped, disks kept) or terminate (released, the data disk kept). 腾讯云 always terminates.' }),
        })
        .optional()
        .meta({ title: 'Create (instance: new)', description: 'How `instance: new` creates: account, spec, region, image, data disk, and on the clouds the network, bandwidth, login key and spot reclaim.' }),
      nodes: z
        .int(said({ code: 'not-whole', what: 'nodes' }))
        .min(1, said({ code: 'at-least', what: 'nodes', min: 1 }))
        .max(MAX_NODES, said({ code: 'at-most', what: 'nodes', max: MAX_NODES }))
        .default(1)
        .meta({ title: 'Nodes', description: 'Instances the run spans (multi-node): the first candidates in order, rank 0 first. More than 1 needs launcher.' }),
      launcher: z
        .enum(['torchrun', 'deepspeed', 'accelerate'], said({ code: 'not-launcher' }))
        .optional()
        .meta({ title: 'Launcher', description: 'Wraps run in torchrun, deepspeed (--no_ssh, a hostfile) or accelerate with the node count, rank and rendezvous; needed for nodes > 1.' }),
      master_addr: z
        .string(said({ code: 'not-address' }))
        .regex(/^[\w.:-]{1,253}$/, said({ code: 'bad-address' }))
        .optional()
        .meta({ title: 'Rendezvous address', description: "The first node's address as the others reach it (default: its private address)." }),
      port: z
        .int(said({ code: 'not-whole', what: 'port' }))
        .min(1024, said({ code: 'at-least', what: 'port', min: 1024 }))
        .max(65535, said({ code: 'at-most', what: 'port', max: 65535 }))
        .optional()
        .meta({ title: 'Rendezvous port', description: 'On the first node (default 29500).' }),
      reclaim_after: duration(MIN_RECLAIM_AFTER_SECONDS)
        .default(DEFAULT_RECLAIM_AFTER_SECONDS)
        .meta({ title: 'Reclaimed after', description: 'How long an ssh-login spot box may stop answering before it counts as reclaimed (default 2m).' }),
      matrix: matrixSchema
        .optional()
        .meta({ title: 'Sweep matrix', description: 'One run per combination: {lr: [1e-4, 3e-4], rank: [8, 16]} makes 4 runs; {lr} in run, resume, env and the paths becomes the run\'s value. Values are numbers, true/false or words of letters, digits and _ . + - /. At most 64 runs.' }),
      max_parallel: z
        .int(said({ code: 'not-whole', what: 'max_parallel' }))
        .min(1, said({ code: 'at-least', what: 'max_parallel', min: 1 }))
        .max(MAX_SWEEP_RUNS, said({ code: 'at-most', what: 'max_parallel', max: MAX_SWEEP_RUNS }))
        .optional()
        .meta({ title: 'Runs at once (sweep)', description: "How many of the sweep's runs go at once (default: one per listed box, or per GPU with gpus_per_run; with new, up to 4 boxes)." }),
      fail_fast: z
        .boolean(said({ code: 'not-boolean', what: 'fail_fast' }))
        .optional()
        .meta({ title: 'Stop the sweep at the first failure', description: 'true: once a run fails no further run starts (the runs going on finish). Default false: a failed run does not stop the others.' }),
      gpus_per_run: z
        .int(said({ code: 'not-whole', what: 'gpus_per_run' }))
        .min(1, said({ code: 'at-least', what: 'gpus_per_run', min: 1 }))
        .max(BOUNDS.gpus.max, said({ code: 'at-most', what: 'gpus_per_run', max: BOUNDS.gpus.max }))
        .optional()
        .meta({ title: 'GPUs per run (sweep)', description: 'Several runs on one listed box, each with its own cards (CUDA_VISIBLE_DEVICES): a box with resources.gpus cards runs gpus / gpus_per_run of them side by side.' }),
    })
    .superRefine((t, ctx) => {
      if (t.matrix === undefined) {
        for (const k of ['max_parallel', 'fail_fast', 'gpus_per_run'] as const) {
          if (t[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: asMessage({ code: 'sweep-needs-matrix', what: k }), input: t[k] });
        }
      } else {
        const runs = Object.values(t.matrix).reduce<number>((n, v) => n * (Array.isArray(v) ? v.length : 1), 1);
        if (t.name.length > maxSweepNameLength(Math.min(runs, MAX_SWEEP_RUNS))) ctx.addIssue({ code: 'custom', path: ['name'], message: asMessage({ code: 'sweep-name-too-long', max: maxSweepNameLength(Math.min(runs, MAX_SWEEP_RUNS)) }), input: t.name });
        if (t.nodes > 1) ctx.addIssue({ code: 'custom', path: ['matrix'], message: asMessage({ code: 'sweep-multinode' }), input: t.nodes });
        const gpus = t.resources?.gpus ?? 1;
        if (t.gpus_per_run !== undefined && t.gpus_per_run > gpus) ctx.addIssue({ code: 'custom', path: ['gpus_per_run'], message: asMessage({ code: 'sweep-gpus-per-run', gpus }), input: t.gpus_per_run });
        if (runs <= MAX_SWEEP_RUNS) for (const p of sweepFieldProblems(t, t.matrix)) ctx.addIssue({ code: 'custom', path: p.path, message: asMessage(p.problem), input: t.matrix });
      }
      if (t.nodes > 1 && t.launcher === undefined) ctx.addIssue({ code: 'custom', path: ['nodes'], message: asMessage({ code: 'nodes-need-launcher' }), input: t.nodes });
      if (t.nodes > 1 && t.resources?.spot) ctx.addIssue({ code: 'custom', path: ['nodes'], message: asMessage({ code: 'nodes-spot' }), input: t.nodes });
      if (t.create?.spot_reclaim !== undefined && (!t.resources?.spot || t.resources.max_yuan_per_hour === undefined)) {
        ctx.addIssue({ code: 'custom', path: ['create', 'spot_reclaim'], message: asMessage({ code: 'spot-reclaim-needs-spot' }), input: t.create.spot_reclaim });
      }
      if (t.resume !== undefined && t.checkpoints === undefined) {
        ctx.addIssue({ code: 'custom', path: ['resume'], message: asMessage({ code: 'resume-needs-checkpoints' }), input: t.resume });
      }
    })
    .meta({ title: 'gpu-rent task', description: 'One task: what to rent, push, set up and run, where checkpoints go and what happens at the end.' });
}

export function fileSchema(task: ReturnType<typeof taskSchema>) {
  const many = z
    .strictObject({
      tasks: z
        .array(task)
        .min(1, said({ code: 'tasks-empty' }))
        .max(MAX_TASKS, said({ code: 'too-many', of: 'tasks', max: MAX_TASKS }))
        .superRefine((tasks, ctx) => {
          const seen = new Set<string>();
          tasks.forEach((t, i) => {
            if (seen.has(t.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: asMessage({ code: 'duplicate-task', name: shown(t.name) }), input: t.name });
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
