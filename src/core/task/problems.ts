// A task file's problems as codes with their facts (issue 23: "line 1, column 1 (run): run is
// required" was English in both front ends). The zod checks in fields.ts and shape.ts carry a
// problem encoded in their message (zod keeps only a string); errors.ts decodes it, and words.ts
// says it in English (the message as it always read) or through the l10n passed in. What the user
// wrote is a fact already quoted and cut (fields.ts `shown`); `field` and `what` are key names
// (run, checkpoints.remote), kept as they are in every language.

/** How a wrong value looks, for "expected int, got the text \"two\"". */
export type ValueKind = { kind: 'list' } | { kind: 'nothing' } | { kind: 'mapping' } | { kind: 'text'; value: string } | { kind: 'other'; type: string; value: string };

/** What "at most N …" counts. */
export type CountOf = 'cards' | 'platforms' | 'instances' | 'data' | 'env' | 'tasks' | 'commands' | 'channels';

export type TaskProblem =
  // The file as a whole (schema.ts).
  | { code: 'file-unreadable'; nested: boolean }
  | { code: 'file-not-text' }
  | { code: 'file-too-large'; kib: number }
  | { code: 'nested-too-deep'; max: number }
  | { code: 'too-many-aliases'; max: number }
  | { code: 'too-many-entries'; max: number }
  | { code: 'aliases-expanded'; max: number }
  | { code: 'yaml'; detail: string }
  | { code: 'yaml-duplicate-key' }
  | { code: 'yaml-alias-no-anchor' }
  | { code: 'yaml-unreadable' }
  | { code: 'complex-key' }
  | { code: 'file-empty' }
  | { code: 'file-not-mapping' }
  // Any field (errors.ts).
  | { code: 'required'; field: string }
  | { code: 'no-value'; field: string }
  | { code: 'wrong-type'; field: string; expected: string; got: ValueKind }
  | { code: 'unknown-key'; key: string; suggest?: string; tasksOnly?: boolean }
  | { code: 'zod'; message: string }
  // One field's checks (fields.ts).
  | { code: 'not-yuan'; what: string }
  | { code: 'yuan-not-positive'; what: string }
  | { code: 'yuan-too-large'; what: string; max: number }
  | { code: 'yuan-decimals'; what: string }
  | { code: 'not-duration' }
  | { code: 'duration-too-long' }
  | { code: 'duration-too-short'; min: number }
  | { code: 'not-command'; what: string }
  | { code: 'empty'; what: string }
  | { code: 'longer-kib'; what: string; kib: number }
  | { code: 'longer-chars'; what: string; max: number }
  | { code: 'control-char'; what: string }
  | { code: 'not-path'; what: string }
  | { code: 'path-outside'; what: string }
  | { code: 'path-in-git'; what: string }
  | { code: 'not-box-path'; what: string }
  | { code: 'box-path-dotdot'; what: string }
  | { code: 'box-path-relative'; what: string }
  | { code: 'box-path-tilde-user'; what: string }
  | { code: 'too-many'; of: CountOf; max: number; what?: string }
  | { code: 'not-command-list'; what: string }
  | { code: 'unknown-card'; card: string; near: string[] }
  | { code: 'not-card' }
  // The task's fields (shape.ts).
  | { code: 'not-platform' }
  | { code: 'unknown-platform'; platform: string; known: string[]; more: boolean }
  | { code: 'not-cards' }
  | { code: 'not-whole'; what: string }
  | { code: 'at-least'; what: string; min: number }
  | { code: 'at-most'; what: string; max: number }
  | { code: 'at-most-chars'; what: string; max: number }
  | { code: 'gpus-too-many'; max: number }
  | { code: 'not-gb'; what: string }
  | { code: 'not-number'; what: string }
  | { code: 'not-positive'; what: string }
  | { code: 'not-boolean'; what: string }
  | { code: 'not-string'; what: string }
  | { code: 'not-instance' }
  | { code: 'not-ssh-login'; login: string }
  | { code: 'not-instance-name'; name: string }
  | { code: 'instance-list-empty' }
  | { code: 'not-instances' }
  | { code: 'data-push-or-fetch' }
  | { code: 'bad-store-ref'; what: string; ref: string }
  | { code: 'not-setup' }
  | { code: 'not-env-value' }
  | { code: 'env-value-nul' }
  | { code: 'env-name' }
  | { code: 'bad-name' }
  | { code: 'resume-no-placeholder' }
  | { code: 'bad-progress-pattern'; problem: 'too-long' | 'syntax' | 'no-group' | 'unknown-group' | 'super-linear' | 'backreference'; detail: string }
  | { code: 'bad-checkpoint-pattern'; problem: 'not-glob' | 'empty' | 'too-long' | 'control-char' | 'dotdot' | 'absolute' | 'too-many-wildcards' | 'too-many'; max?: number }
  | { code: 'not-end'; ends: string[] }
  | { code: 'smoke-steps-too-many' }
  | { code: 'smoke-minutes-too-many' }
  | { code: 'not-account' }
  | { code: 'bad-id-chars'; what: string }
  | { code: 'bad-image-chars' }
  | { code: 'not-public-key-path' }
  | { code: 'not-spot-reclaim' }
  | { code: 'spot-reclaim-needs-spot' }
  | { code: 'not-launcher' }
  | { code: 'bad-mirror'; what: string; choices: string[]; url: boolean }
  | { code: 'not-address' }
  | { code: 'bad-address' }
  | { code: 'nodes-need-launcher' }
  | { code: 'nodes-spot' }
  | { code: 'resume-needs-checkpoints' }
  | { code: 'tasks-empty' }
  | { code: 'duplicate-task'; name: string }
  // A sweep's matrix (sweep.ts).
  | { code: 'sweep-not-matrix' }
  | { code: 'sweep-key' }
  | { code: 'sweep-keys'; max: number }
  | { code: 'sweep-values'; max: number }
  | { code: 'sweep-value'; value: string; problem: 'type' | 'chars' | 'long'; max: number }
  | { code: 'sweep-duplicate'; key: string }
  | { code: 'sweep-too-many'; runs: number; max: number }
  | { code: 'sweep-unused'; key: string }
  | { code: 'sweep-too-long'; field: string; max: number }
  | { code: 'sweep-shared-checkpoints' }
  | { code: 'sweep-path'; field: string }
  | { code: 'sweep-needs-matrix'; what: string }
  | { code: 'sweep-name-too-long'; max: number }
  | { code: 'sweep-multinode' }
  | { code: 'sweep-gpus-per-run'; gpus: number };

export type TaskProblemCode = TaskProblem['code'];

/** zod keeps a check's message only: the problem travels in it, behind this mark. */
const MARK = '\u0000gpu-rent-task:';

/** A problem as a zod message. */
export function asMessage(p: TaskProblem): string {
  return MARK + JSON.stringify(p);
}

/** `{ error }` for a zod check. */
export function said(p: TaskProblem): { error: string } {
  return { error: asMessage(p) };
}

/** The problem a zod message carries; zod's own words (no mark) become a `zod` problem. */
export function problemOf(message: string): TaskProblem {
  if (!message.startsWith(MARK)) return { code: 'zod', message };
  try {
    const p = JSON.parse(message.slice(MARK.length)) as TaskProblem;
    return typeof p === 'object' && p !== null && typeof p.code === 'string' ? p : { code: 'zod', message };
  } catch {
    return { code: 'zod', message };
  }
}
