// What happens when a run ends: the final checkpoint sync first, and only when it succeeded
// (every file verified, nothing skipped, not interrupted) the power action. A failed sync
// stops the power action and says so. Every step and its result is logged and returned.
import type { EndAction } from '../../core/progress';
import type { Instance } from '../../core/instances';

/**
 * Power actions of the instance's platform account, filled by the front end from the platform
 * connector when one is connected (the hook: `powerActionsFor` in the extension's
 * commands/runs/endOfRun.ts). undefined = no connector: a power-off falls back to the box.
 */
export interface PowerActions {
  powerOff(inst: Instance): Promise<void>;
  noGpu(inst: Instance): Promise<void>;
}

export interface SyncOutcome {
  /** Synced and verified: every file checked by SHA-256, none skipped, not interrupted. */
  ok: boolean;
  files: number;
  bytes: number;
  detail: string;
}

export interface EndActionDeps {
  /** The final checkpoint sync (throws or returns ok:false on failure). */
  sync(): Promise<SyncOutcome>;
  power: PowerActions | undefined;
  /** Without a connector: power off from the box itself (AutoDL documents `shutdown` inside an instance as a stop). */
  powerOffFromBox?: () => Promise<void>;
  log(line: string): void;
}

export type EndStep =
  | { step: 'sync'; ok: boolean; detail: string; files?: number; bytes?: number }
  | { step: 'noGpu' | 'powerOff'; ok: boolean; via: 'connector' | 'box' | 'none'; detail: string };

export interface EndActionResult {
  action: EndAction;
  steps: EndStep[];
  /** Why the power action did not run: the sync failed, or nothing can do it (no connector for no-GPU mode). */
  stopped?: 'syncFailed' | 'noWayToPower';
  ok: boolean;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 500);

export async function runEndAction(action: EndAction, inst: Instance, deps: EndActionDeps): Promise<EndActionResult> {
  const steps: EndStep[] = [];
  const done = (r: Omit<EndActionResult, 'action' | 'steps'>): EndActionResult => {
    deps.log(`[${inst.id}] end action ${action}: ${r.ok ? 'done' : `not completed${r.stopped ? ` (${r.stopped})` : ''}`}`);
    return { action, steps, ...r };
  };
  if (action === 'nothing') return done({ ok: true });
  deps.log(`[${inst.id}] end action ${action}: final checkpoint sync`);
  let sync: SyncOutcome;
  try {
    sync = await deps.sync();
  } catch (e) {
    sync = { ok: false, files: 0, bytes: 0, detail: message(e) };
  }
  steps.push({ step: 'sync', ok: sync.ok, detail: sync.detail, files: sync.files, bytes: sync.bytes });
  deps.log(`[${inst.id}] final sync ${sync.ok ? 'verified' : 'FAILED'}: ${sync.detail}`);
  if (!sync.ok) return done({ ok: false, stopped: action === 'sync' ? undefined : 'syncFailed' });
  if (action === 'sync') return done({ ok: true });

  const step = action === 'sync-then-no-gpu' ? 'noGpu' : 'powerOff';
  const viaConnector = deps.power ? (step === 'noGpu' ? deps.power.noGpu.bind(deps.power) : deps.power.powerOff.bind(deps.power)) : undefined;
  const viaBox = step === 'powerOff' ? deps.powerOffFromBox : undefined;
  const run = viaConnector ?? viaBox;
  if (!run) {
    // The box cannot switch itself to a platform's no-GPU mode: that needs the account's API.
    steps.push({ step, ok: false, via: 'none', detail: 'no platform connector for this instance' });
    deps.log(`[${inst.id}] ${step}: not possible without a platform connector`);
    return done({ ok: false, stopped: 'noWayToPower' });
  }
  const via = viaConnector ? 'connector' : 'box';
  deps.log(`[${inst.id}] ${step} via ${via}`);
  try {
    await run(inst);
    steps.push({ step, ok: true, via, detail: 'done' });
    return done({ ok: true });
  } catch (e) {
    steps.push({ step, ok: false, via, detail: message(e) });
    deps.log(`[${inst.id}] ${step} via ${via} failed: ${message(e)}`);
    return done({ ok: false });
  }
}

/** A sync report as an end-action outcome: ok only when nothing was skipped or interrupted (each pulled file is SHA-256 checked by the engine). */
export function syncOutcomeOf(r: { files: number; bytes: number; skipped: readonly unknown[]; interrupted: boolean; verified: number; unchanged: number }): SyncOutcome {
  const ok = !r.interrupted && r.skipped.length === 0;
  const detail = r.interrupted ? 'interrupted' : r.skipped.length ? `${r.skipped.length} file(s) skipped` : `${r.files} file(s) pulled, ${r.verified + r.unchanged} already here, all verified`;
  return { ok, files: r.files, bytes: r.bytes, detail };
}
