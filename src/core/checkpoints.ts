// What a checkpoint is, once for the sync's "newest complete" line, the launch's resume
// (`{checkpoint}`), the release guard and the ledger: a folder or file under the checkpoint
// folder whose name matches the task's `checkpoints.pattern` (default: the common layouts
// below), complete only when its writer is done, never a log. Pure: the caller lists the files
// (a local walk, or the box's listing) and this decides.
//
// The default layouts and where each is documented:
// - `checkpoint-N/` (folder): Hugging Face Trainer's `PREFIX_CHECKPOINT_DIR = "checkpoint"` and
//   `f"{PREFIX_CHECKPOINT_DIR}-{self.state.global_step}"` (transformers/trainer.py `_save_checkpoint`,
//   trainer_utils.py); it writes `trainer_state.json` into it last of the trainer's own files
//   (`self.state.save_to_json(...)`), so a folder without it is not done. LLaMA-Factory and
//   ms-swift train through the same Trainer (their docs' output trees show `checkpoint-100/`).
// - `global_stepN/` (folder): DeepSpeed's `save_checkpoint` tag default `f"global_step{self.global_steps}"`
//   (deepspeed/runtime/engine.py), with a `latest` file naming it.
// - `*.ckpt` (file): PyTorch Lightning's ModelCheckpoint, `epoch=3-step=1200.ckpt` by default
//   (CHECKPOINT_JOIN_CHAR "-", CHECKPOINT_EQUALS_CHAR "=") and `last.ckpt` with `save_last`
//   (lightning/pytorch/callbacks/model_checkpoint.py).
// - `step-N`, `step_N`, `epoch-N`, `iter_N` (folder or weight file): Accelerate's
//   `save_state` examples (`step_{N}`, `epoch_{N}`), Megatron's `iter_0001000/`, mmengine's `epoch_3.pth`/`iter_1000.pth`.
// - weight files with a step number (`model_step1000.pt`, `adapter_500.safetensors`): the
//   common hand-written `torch.save(..., f"model_step{step}.pt")`; sharded weights
//   (`model-00001-of-00004.safetensors`) are parts of one model, not checkpoints.
// - YOLO `weights/last.pt` and `weights/best.pt` (ultralytics engine/trainer.py `self.last`,
//   `self.best`): `last.pt` is what `resume=True` reads; `best.pt` is picked only when nothing else is there.

/** One file under the checkpoint folder: '/'-separated path relative to it, mtime in seconds. */
export interface CheckpointFile {
  rel: string;
  mtime: number;
  size?: number;
}

export type CheckpointIncomplete = 'partial-file' | 'still-being-written' | 'no-trainer-state' | 'empty' | 'not-all-home';

export interface Checkpoint {
  /** '/'-separated path relative to the checkpoint folder (`checkpoint-20`, `weights/last.pt`). */
  name: string;
  kind: 'folder' | 'file';
  /** The step (or epoch) number in the name, if it has one. */
  step?: number;
  /** Its newest file's mtime, seconds. */
  mtime: number;
  /** Absent when complete. */
  incomplete?: CheckpointIncomplete;
}

export interface CheckpointOptions {
  /** The task's `checkpoints.pattern`: globs (`*` within a name, `**` across folders); none: the default layouts. */
  patterns?: readonly string[];
  /** Now, seconds, by the same clock as the files' mtimes; with `settleSeconds`, a checkpoint modified since is not done. */
  now?: number;
  /** Default 5 (the sync's own settle time). */
  settleSeconds?: number;
  /** Files (paths as in `files`) the sync skipped, not home yet or still being written: a checkpoint holding one is not complete. */
  unsettled?: ReadonlySet<string>;
}

export const DEFAULT_CHECKPOINT_SETTLE_SECONDS = 5;
/** Deeper entries are not looked at (YOLO's `runs/train/exp/weights/last.pt` is 4 deep). */
export const MAX_CHECKPOINT_DEPTH = 6;
export const MAX_CHECKPOINT_PATTERNS = 16;
export const MAX_CHECKPOINT_PATTERN_LENGTH = 200;

const WEIGHT_EXT = /\.(?:pt|pth|bin|safetensors|ckpt|pkl|h5|msgpack|npz|tar)$/i;
const DEFAULT_FOLDER = /^(?:checkpoint-\d+|global_step\d+|(?:step|epoch|iter|iteration)[-_]?\d+)$/i;
const SHARD = /-\d{3,}-of-\d{3,}\./i;
/** What a writer leaves while it is not done (`x.tmp`, `x.part`, `x.incomplete`, HF's staging `tmp-checkpoint-N`, Python's tempfile `tmpk3j2_x8q`, the sync's own parts). */
const WRITER_MARK = /\.(?:tmp|temp|part|partial|incomplete)(?:$|\.)|^\.?tmp[-_.]|^tmp[a-z0-9_]{8}(?:\.|$)|\.gpu-rent-/i;
const LOG_NAME = /(?:\.(?:log|txt|jsonl|csv|out|err|md|yaml|yml|png|jpg|html)$|^events\.out\.tfevents\.|^trainer_log|^train_log)/i;

function isDefaultFile(base: string): boolean {
  if (!WEIGHT_EXT.test(base) || SHARD.test(base)) return false;
  if (/\.ckpt$/i.test(base)) return true;
  if (/^(?:last|best)\.(?:pt|pth)$/i.test(base)) return true;
  const stem = base.replace(WEIGHT_EXT, '');
  return /(?:step|iter|iteration|epoch|ckpt|checkpoint)[-_=]?\d+/i.test(stem) || /[-_]\d+$/.test(stem);
}

/** The step (or epoch) a name carries: after step/global_step/iter first, then checkpoint, then epoch, else its last number. */
export function stepOf(name: string): number | undefined {
  const base = name.slice(name.lastIndexOf('/') + 1);
  for (const re of [/(?:global_?step|step|iter(?:ation)?)[-_=]?0*(\d{1,15})/i, /checkpoint[-_=]?0*(\d{1,15})/i, /epoch[-_=]?0*(\d{1,15})/i, /(\d{1,15})(?!.*\d)/]) {
    const m = re.exec(base);
    if (m) return Number(m[1]);
  }
  return undefined;
}

/** One name against one glob segment (`*` any run, `?` one character): the linear two-pointer walk, no backtracking blow-up. */
function segmentMatches(glob: string, name: string): boolean {
  let g = 0;
  let n = 0;
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    if (g < glob.length && (glob[g] === '?' || glob[g] === name[n])) {
      g++;
      n++;
    } else if (g < glob.length && glob[g] === '*') {
      star = g++;
      mark = n;
    } else if (star !== -1) {
      g = star + 1;
      n = ++mark;
    } else return false;
  }
  while (g < glob.length && glob[g] === '*') g++;
  return g === glob.length;
}

/**
 * A glob as a test of a '/'-separated path: `*` and `?` within one name, `**` for any number of
 * folders; a glob without `/` tests the last name (a name at any depth). Time is bounded by the
 * names' and segments' lengths (no regular expression to backtrack).
 */
export function globMatcher(glob: string): (path: string) => boolean {
  if (!glob.includes('/')) return (path) => segmentMatches(glob, path.slice(path.lastIndexOf('/') + 1));
  const gs = glob.split('/').filter((x) => x !== '');
  return (path) => {
    const ps = path.split('/');
    const seen = new Map<number, boolean>();
    const at = (i: number, j: number): boolean => {
      const key = i * 1024 + j;
      const known = seen.get(key);
      if (known !== undefined) return known;
      let r: boolean;
      if (i === gs.length) r = j === ps.length;
      else if (gs[i] === '**') r = at(i + 1, j) || (j < ps.length && at(i, j + 1));
      else r = j < ps.length && segmentMatches(gs[i]!, ps[j]!) && at(i + 1, j + 1);
      seen.set(key, r);
      return r;
    };
    return at(0, 0);
  };
}

/** A pattern the task file may hold: a glob of at most 200 characters, no control characters, no `..`, not absolute. */
export function checkpointPatternProblem(p: string): 'empty' | 'too-long' | 'control-char' | 'dotdot' | 'absolute' | 'too-many-wildcards' | undefined {
  if (p.trim() === '') return 'empty';
  if (p.length > MAX_CHECKPOINT_PATTERN_LENGTH) return 'too-long';
  if (/[\u0000-\u001f\u007f]/.test(p)) return 'control-char';
  if (p.split('/').includes('..')) return 'dotdot';
  if (p.startsWith('/') || p.startsWith('~')) return 'absolute';
  if ((p.match(/\*+/g) ?? []).length > 8) return 'too-many-wildcards';
  return undefined;
}

/** Logs, metrics and tensorboard events are never checkpoints, whatever the pattern. */
export const isLogName = (base: string) => LOG_NAME.test(base);

/**
 * Every checkpoint under the folder (complete or not), outermost match first: a folder that
 * matches is one checkpoint with all that is under it; its files are not looked at on their own.
 */
export function findCheckpoints(files: readonly CheckpointFile[], o: CheckpointOptions = {}): Checkpoint[] {
  const globs = o.patterns?.length ? o.patterns.slice(0, MAX_CHECKPOINT_PATTERNS).map(globMatcher) : undefined;
  const matchesName = (path: string, isFolder: boolean): boolean => {
    const base = path.slice(path.lastIndexOf('/') + 1);
    if (isLogName(base) || WRITER_MARK.test(base) || base.startsWith('.gpu-rent')) return false;
    if (globs) return globs.some((g) => g(path));
    return isFolder ? DEFAULT_FOLDER.test(base) : isDefaultFile(base);
  };
  const found = new Map<string, { kind: 'folder' | 'file'; files: CheckpointFile[] }>();
  for (const f of files) {
    const parts = f.rel.split('/');
    if (parts.length > MAX_CHECKPOINT_DEPTH + 1 || parts.some((p) => p === '' || p === '.' || p === '..')) continue;
    if (parts.some((p) => p.startsWith('.gpu-rent'))) continue;
    let owner: string | undefined;
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (found.get(dir)?.kind === 'folder' || matchesName(dir, true)) {
        owner = dir;
        break;
      }
    }
    if (owner !== undefined) {
      const e = found.get(owner) ?? { kind: 'folder' as const, files: [] };
      e.files.push(f);
      found.set(owner, e);
    } else if (!parts.slice(0, -1).some((p) => WRITER_MARK.test(p)) && matchesName(f.rel, false)) found.set(f.rel, { kind: 'file', files: [f] });
  }
  const settle = o.settleSeconds ?? DEFAULT_CHECKPOINT_SETTLE_SECONDS;
  const pending = [...(o.unsettled ?? [])];
  const out: Checkpoint[] = [];
  for (const [name, e] of found) {
    const mtime = Math.max(...e.files.map((f) => f.mtime));
    const step = stepOf(name);
    const inner = e.files.map((f) => (e.kind === 'folder' ? f.rel.slice(name.length + 1) : f.rel.slice(f.rel.lastIndexOf('/') + 1)));
    let incomplete: CheckpointIncomplete | undefined;
    if (e.files.length === 0) incomplete = 'empty';
    else if (inner.some((r) => r.split('/').some((p) => WRITER_MARK.test(p)))) incomplete = 'partial-file';
    else if (pending.some((p) => p === name || p.startsWith(`${name}/`))) incomplete = 'not-all-home';
    else if (o.now !== undefined && o.now - mtime < settle) incomplete = 'still-being-written';
    else if (e.kind === 'folder' && /^checkpoint-\d+$/i.test(name.slice(name.lastIndexOf('/') + 1)) && !inner.includes('trainer_state.json')) incomplete = 'no-trainer-state';
    out.push({ name, kind: e.kind, ...(step !== undefined ? { step } : {}), mtime, ...(incomplete ? { incomplete } : {}) });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const isBest = (c: Checkpoint) => /(?:^|[/_-])best[^/]*$/i.test(c.name);

/**
 * Newest first: numbered checkpoints by their number, then mtime; an unnumbered one (`last.ckpt`,
 * `weights/last.pt`) ranks by its mtime against the newest numbered one (it is usually written
 * with it or after it); `best…` ranks below every other.
 */
export function newestFirst(list: readonly Checkpoint[]): Checkpoint[] {
  const byNumber = (a: Checkpoint, b: Checkpoint) => (b.step! - a.step! || b.mtime - a.mtime || (a.name < b.name ? 1 : -1));
  const byTime = (a: Checkpoint, b: Checkpoint) => b.mtime - a.mtime || (a.name < b.name ? 1 : -1);
  const numbered = list.filter((c) => c.step !== undefined && !isBest(c)).sort(byNumber);
  const unnumbered = list.filter((c) => c.step === undefined && !isBest(c)).sort(byTime);
  const best = list.filter(isBest).sort(byTime);
  const merged: Checkpoint[] = [];
  let i = 0;
  let j = 0;
  while (i < numbered.length || j < unnumbered.length) {
    const n = numbered[i];
    const u = unnumbered[j];
    if (u && (!n || u.mtime >= n.mtime)) {
      merged.push(u);
      j++;
    } else {
      merged.push(n!);
      i++;
    }
  }
  return [...merged, ...best];
}

/** The checkpoint a resume starts from: the newest complete one. */
export function newestComplete(files: readonly CheckpointFile[], o: CheckpointOptions = {}): Checkpoint | undefined {
  return newestFirst(findCheckpoints(files, o).filter((c) => !c.incomplete))[0];
}

/**
 * Characters a shell gives no meaning to anywhere in a word (inside double quotes, single
 * quotes or none): letters and digits of any script, `_ . - + , = @ % : /`. A `{checkpoint}`
 * path of only these is substituted as it is and is the same text in every quoting the user
 * may have written around it.
 */
const SHELL_INERT = /^[\p{L}\p{N}_.\-+,=@%:/]+$/u;

export type CheckpointArgument = { ok: true; text: string } | { ok: false; path: string; bad: string[] };

/**
 * The text `{checkpoint}` becomes in a resume command: the path itself when every character of
 * it is inert to a shell (so it is right inside the user's "…", '…' or no quotes at all, and a
 * name the box chose cannot run anything); else refused, with the characters that are not.
 */
export function checkpointArgument(path: string): CheckpointArgument {
  if (path.length > 0 && path.length <= 4096 && SHELL_INERT.test(path) && !path.startsWith('-') && !/(?:^|\/)\.\.(?:\/|$)/.test(path)) return { ok: true, text: path };
  const bad = [...new Set([...path].filter((ch) => !SHELL_INERT.test(ch)))].slice(0, 8);
  return { ok: false, path, bad };
}

/**
 * The rules above as regular-expression sources (all case-insensitive), for the on-box
 * supervisor's copy of this algorithm in python3 (remote/guards/supervisor-script.ts), which
 * test/unit/supervisor-checkpoints.test.ts checks gives the same answers as findCheckpoints.
 */
export const CHECKPOINT_RULE_SOURCES = {
  weightExt: WEIGHT_EXT.source,
  defaultFolder: DEFAULT_FOLDER.source,
  shard: SHARD.source,
  writerMark: WRITER_MARK.source,
  logName: LOG_NAME.source,
} as const;
