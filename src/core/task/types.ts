// A task as `gpu-rent.yaml` describes it, after validation (core/task/schema.ts) and defaults:
// what to rent, what to push, what to run, where checkpoints go and what happens at the end.
// Money is fen, durations seconds, exactly as everywhere else.
import type { TaskProblem } from './problems';
import type { TaskMirrors } from './mirrors';
import type { SweepMember, TaskSweep } from './sweep';

/** Where the task runs: a new instance, an existing one (name or platform id), or an SSH login; tried in order. */
export type TaskInstance = { kind: 'new' } | { kind: 'named'; ref: string } | { kind: 'ssh'; login: string };

export interface TaskResources {
  /** Acceptable cards, card ids from core/cards (aliases resolved: "4090" → "rtx4090"), in order of preference; empty = any priced card. */
  cards: string[];
  /** GPUs per instance (default 1). */
  gpus: number;
  /** VRAM each card must have, GB. */
  minVramGb?: number;
  /** The most the instance may cost per hour, fen. */
  maxFenPerHour?: number;
  /** Catalog platform ids allowed; empty = all. */
  platforms: string[];
  /** Spot (preemptible) instances allowed (default false). */
  spot: boolean;
}

export interface TaskData {
  /** A local folder or file (relative to the task file's folder) pushed to `remote` on the box. */
  push?: string;
  /** A shell command run on the box (a download: huggingface-cli, wget, a dataset script). */
  fetch?: string;
  /** A store and prefix (`NAME/PREFIX`) the box pulls into `remote` itself, verified (presigned GET URLs, no key on the box). */
  from?: string;
  /** Where `push` goes on the box, or the folder `fetch` runs in (created); absolute or ~/… */
  remote: string;
}

export interface TaskCheckpoints {
  /** The checkpoint folder on the box, relative to the remote workdir or absolute / ~/… */
  remote: string;
  /** The local folder it is synced into (relative to the task file's folder). */
  local: string;
  /** Seconds between verified syncs while the run goes (default 600). */
  everySeconds: number;
  /** Globs naming what counts as a checkpoint (core/checkpoints.ts); absent: the common layouts. */
  patterns?: string[];
  /** A store and prefix (`NAME/PREFIX`) the box uploads each complete checkpoint to, with a grant (no key on the box). */
  store?: string;
}

/** none | no-gpu | power-off | release (release asks unless --yes). */
export type TaskEnd = 'none' | 'no-gpu' | 'power-off' | 'release';
export const TASK_ENDS: readonly TaskEnd[] = ['none', 'no-gpu', 'power-off', 'release'];

export interface TaskSmoke {
  /** Stop after this many training steps (as the log's progress counts them). */
  steps?: number;
  /** Stop after this many seconds of running. */
  seconds?: number;
}

export interface TaskCreate {
  account?: string;
  /** The platform's spec id or instance type; default the card from resources.cards. */
  spec?: string;
  region?: string;
  image?: string;
  diskGb?: number;
  /** 阿里云: the vSwitch RunInstances needs (YAML vswitch). */
  vSwitchId?: string;
  /** 阿里云/腾讯云: the security group (default: gpu-rent-ssh-only, made and reused). */
  securityGroupId?: string;
  /** 腾讯云: the VPC and its subnet. */
  vpcId?: string;
  subnetId?: string;
  /** 阿里云/腾讯云: public bandwidth out, Mbit/s. */
  bandwidthMbps?: number;
  /** The SSH public key file as written (relative to the task file, or ~/…); the launch resolves it and keeps it inside the user's home. */
  sshKey?: string;
  /** With resources.spot: what a reclaim does. */
  spotReclaim?: 'stop' | 'terminate';
}

export interface Task {
  /** Letters, digits, - and _ (1–64): names the job on the box, the launch state and ~/gpu-rent/<name>. */
  name: string;
  resources: TaskResources;
  /** Candidates in order (a spot recovery moves to the next one that is not lost). */
  instances: TaskInstance[];
  /** Local folder pushed (relative to the task file's folder; default "."), .gitignore respected. */
  workdir: string;
  /** Where it goes on the box (default ~/gpu-rent/<name>); absolute or ~/… */
  remoteWorkdir: string;
  data: TaskData[];
  /** Commands run once on the box in the remote workdir before the run (each must exit 0). */
  setup: string[];
  /** An environment capture (gpu-rent env capture) to rebuild before setup, relative to the task file's folder. */
  environment?: string;
  /** The run command (a shell command line, in the remote workdir). */
  run: string;
  /** Environment variables for setup and run. */
  env: Record<string, string>;
  /** YAML `mirrors:` (core/task/mirrors.ts); absent: auto. */
  mirrors?: TaskMirrors;
  checkpoints?: TaskCheckpoints;
  /** The run command after an interruption; `{checkpoint}` becomes the last verified checkpoint's path on the box. */
  resume?: string;
  end: TaskEnd;
  /**
   * What the box does by itself when the run ends while the laptop is away (YAML `end_unattended`):
   * power-off (only where the box can stop its own billing: AutoDL as root; an SSH login as root) or
   * none (it keeps billing until the laptop is back). Default: power-off where the task's end turns the meter off.
   */
  endUnattended?: 'power-off' | 'none';
  /** The most the whole launch may cost, fen. */
  budgetFen?: number;
  /** Message channels told of the run's events (gpu-rent notify …; VS Code: gpuRent.notify.channels), each once. */
  notify?: string[];
  /** The task file's `progress:` pattern (checked by core/progress/userPattern): named groups step/total/loss/epoch, read on every log line first. */
  progressPattern?: string;
  /** What --smoke stops at (default 20 steps or 5 minutes, whichever comes first). */
  smoke: TaskSmoke;
  /** The hourly price of an SSH-login instance, fen (what the console shows): the meter and the budget use it. */
  priceFenPerHour?: number;
  /** Instances the run spans (multi-node; default 1): the first `nodes` candidates, rank 0 first. */
  nodes?: number;
  launcher?: 'torchrun' | 'deepspeed' | 'accelerate';
  /** The first node's address as the others reach it (default: its private address). */
  masterAddr?: string;
  rendezvousPort?: number;
  /** How `instance: new` creates (YAML `create:`): the account, the platform's spec or card, region, image, data disk. */
  create?: TaskCreate;
  /** Seconds an SSH-login spot box may stop answering before it counts as reclaimed (default 120). */
  reclaimAfterSeconds: number;
  /** YAML `matrix:` (with max_parallel, fail_fast, gpus_per_run): one run per combination (core/task/sweep.ts). */
  sweep?: TaskSweep;
  /** A sweep's run: its sweep, index and values (the ledger records them). */
  sweepMember?: SweepMember;
}

/** One problem in a task file: where (1-based line and column, the field's path) and what. */
export interface TaskFileError {
  line: number;
  column: number;
  /** The field's path, e.g. "tasks[1].resources.max_yuan_per_hour"; "" for the file as a whole. */
  field: string;
  /** The problem as a code with its facts (core/task/words.ts says it in a language). */
  problem: TaskProblem;
  /** Its English words. */
  message: string;
}

export type TaskFileResult = { ok: true; tasks: Task[] } | { ok: false; errors: TaskFileError[] };
