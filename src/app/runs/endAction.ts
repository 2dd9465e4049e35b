// What happens when a run ends: the final checkpoint sync first, and only when it succeeded
// (every file verified, nothing skipped, not interrupted) the power action. A failed sync
// stops the power action and says so. Every step and its result is logged and returned.
import type { EndAction } from '../../core/progress';
import type { Instance } from '../../core/instances';
import type { PlatformKind } from '../../core/platforms/types';
import type { BoxPowerOffResult } from './boxPower';

/**
 * Power actions of the instance's platform account, filled by the front end from the platform
 * connector when one is connected (the hook: `powerActionsFor` in the extension's
 * services/endOfRun.ts). undefined = no connector: a power-off falls back to the box.
 */
export interface PowerActions {
  /** The account's platform: what its connector declares decides what is offered (core/guards/powerOffer). */
  kind?: PlatformKind;
  powerOff(inst: Instance): Promise<void>;
  noGpu(inst: Instance): Promise<void>;
}

export interface SyncOutcome {
  /** Synced and verified: every file checked by SHA-256, none skipped, not interrupted. */
  ok: boolean;
  files: number;
  bytes: number;
  detail: string;
  /** What `detail` says, as a code with its facts (its English is `detail`). */
  said?: EndDetail;
}

/**
 * What an end step's detail says, as a code with its facts, so a front end can say it in its
 * language; `detail` stays the English (the log, the launch state). `failed`: a thrown error,
 * for the front end to put into words (a RemoteError by its code).
 */
export type EndDetail =
  | { code: 'sync-interrupted' }
  | { code: 'sync-skipped'; skipped: number; conflicts?: SyncConflicts }
  | { code: 'sync-verified'; files: number; here: number; conflicts?: SyncConflicts }
  | { code: 'no-connector' }
  | { code: 'platform-done' }
  | { code: 'box-stopped'; seconds: number }
  | { code: 'box-refused'; exitCode: number; output: string }
  | { code: 'box-still-answering'; seconds: number }
  | { code: 'failed'; error: unknown };

export interface EndActionDeps {
  /** The final checkpoint sync (throws or returns ok:false on failure). */
  sync(): Promise<SyncOutcome>;
  power: PowerActions | undefined;
  /**
   * Without a connector: power off from the box itself and verify it (the SSH endpoint stops
   * answering; app/runs/boxPower.ts). undefined = the login cannot (refused when the run starts).
   */
  powerOffFromBox?: () => Promise<BoxPowerOffResult>;
  /** Each line in English (the log), and what it says as a code with its facts (a front end's own words). */
  log(line: string, said?: EndLog): void;
}

/** What one end-action log line says. */
export type EndLog =
  | { code: 'sync-start'; action: EndAction }
  | { code: 'sync-done'; ok: boolean; step: EndStep }
  | { code: 'no-connector'; step: 'noGpu' | 'powerOff' }
  | { code: 'power-via'; step: 'noGpu' | 'powerOff'; via: 'connector' | 'box' }
  | { code: 'power-not-done'; step: EndStep }
  | { code: 'end'; action: EndAction; ok: boolean; stopped?: 'syncFailed' | 'noWayToPower'; stillBilling: boolean };

export type EndStep =
  | { step: 'sync'; ok: boolean; detail: string; said?: EndDetail; files?: number; bytes?: number }
  | { step: 'noGpu' | 'powerOff'; ok: boolean; via: 'connector' | 'box' | 'none'; detail: string; said?: EndDetail; failure?: PowerFailure };

/** Why a power step did not happen: the box's command exited non-zero, the box still answers SSH at the deadline, or the platform refused / never reached the state. */
export type PowerFailure = 'refused' | 'stillAnswering' | 'platform';

export interface EndActionResult {
  action: EndAction;
  steps: EndStep[];
  /** Why the power action did not run: the sync failed, or nothing can do it (no connector for no-GPU mode). */
  stopped?: 'syncFailed' | 'noWayToPower';
  ok: boolean;
  /** A power action was due and did not (verifiably) happen: the box keeps billing. */
  stillBilling: boolean;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 500);

export async function runEndAction(action: EndAction, inst: Instance, deps: EndActionDeps): Promise<EndActionResult> {
  const steps: EndStep[] = [];
  const powerDue = action === 'sync-then-no-gpu' || action === 'sync-then-power-off';
  const done = (r: Omit<EndActionResult, 'action' | 'steps' | 'stillBilling'>): EndActionResult => {
    const stillBilling = powerDue && !r.ok;
    deps.log(`[${inst.id}] end action ${action}: ${r.ok ? 'done' : `not completed${r.stopped ? ` (${r.stopped})` : ''}${stillBilling ? '; the box keeps billing' : ''}`}`, { code: 'end', action, ok: r.ok, ...(r.stopped ? { stopped: r.stopped } : {}), stillBilling });
    return { action, steps, ...r, stillBilling };
  };
  if (action === 'nothing') return done({ ok: true });
  deps.log(`[${inst.id}] end action ${action}: final checkpoint sync`, { code: 'sync-start', action });
  let sync: SyncOutcome;
  try {
    sync = await deps.sync();
  } catch (e) {
    sync = { ok: false, files: 0, bytes: 0, detail: message(e), said: { code: 'failed', error: e } };
  }
  steps.push({ step: 'sync', ok: sync.ok, detail: sync.detail, ...(sync.said ? { said: sync.said } : {}), files: sync.files, bytes: sync.bytes });
  deps.log(`[${inst.id}] final sync ${sync.ok ? 'verified' : 'FAILED'}: ${sync.detail}`, { code: 'sync-done', ok: sync.ok, step: steps[steps.length - 1]! });
  if (!sync.ok) return done({ ok: false, stopped: action === 'sync' ? undefined : 'syncFailed' });
  if (action === 'sync') return done({ ok: true });

  const step = action === 'sync-then-no-gpu' ? 'noGpu' : 'powerOff';
  const viaConnector = deps.power ? (step === 'noGpu' ? deps.power.noGpu.bind(deps.power) : deps.power.powerOff.bind(deps.power)) : undefined;
  const viaBox = step === 'powerOff' ? deps.powerOffFromBox : undefined;
  if (!viaConnector && !viaBox) {
    // The box cannot switch itself to a platform's no-GPU mode: that needs the account's API.
    steps.push({ step, ok: false, via: 'none', detail: 'no platform connector for this instance', said: { code: 'no-connector' } });
    deps.log(`[${inst.id}] ${step}: not possible without a platform connector`, { code: 'no-connector', step });
    return done({ ok: false, stopped: 'noWayToPower' });
  }
  const via = viaConnector ? 'connector' : 'box';
  deps.log(`[${inst.id}] ${step} via ${via}`, { code: 'power-via', step, via });
  try {
    if (viaConnector) {
      // The connector's action resolves only once the platform reports the target state (settle).
      await viaConnector(inst);
      steps.push({ step, ok: true, via, detail: 'done, the platform reports it', said: { code: 'platform-done' } });
      return done({ ok: true });
    }
    const r = await viaBox!();
    if (r.ok) {
      steps.push({ step, ok: true, via, detail: `done: the box stopped answering SSH after ${r.seconds} s`, said: { code: 'box-stopped', seconds: r.seconds } });
      return done({ ok: true });
    }
    const output = r.reason === 'refused' && r.output ? r.output.replace(/\s+/g, ' ').slice(-300) : '';
    const said: EndDetail = r.reason === 'refused' ? { code: 'box-refused', exitCode: r.exitCode, output } : { code: 'box-still-answering', seconds: r.seconds };
    const detail = r.reason === 'refused' ? `the power-off command failed on the box (exit ${r.exitCode})${output ? `: ${output}` : ''}` : `the box still answers SSH ${r.seconds} s after the power-off`;
    steps.push({ step, ok: false, via, detail, said, failure: r.reason });
    deps.log(`[${inst.id}] ${step} via box NOT done: ${detail}`, { code: 'power-not-done', step: steps[steps.length - 1]! });
    return done({ ok: false });
  } catch (e) {
    steps.push({ step, ok: false, via, detail: message(e), said: { code: 'failed', error: e }, failure: via === 'connector' ? 'platform' : 'refused' });
    deps.log(`[${inst.id}] ${step} via ${via} failed: ${message(e)}`, { code: 'power-not-done', step: steps[steps.length - 1]! });
    return done({ ok: false });
  }
}

/**
 * The one line both front ends' English says when a power action did not happen, e.g.
 * "end action sync-then-power-off: the box did NOT power off and keeps billing ¥2.00/h: …".
 * `rate` is formatted by the caller (¥/h), or null when the price is not known.
 */
export function stillBillingLine(r: EndActionResult, rate: string | null): string | null {
  if (!r.stillBilling) return null;
  const power = r.steps.find((s): s is Extract<EndStep, { step: 'noGpu' | 'powerOff' }> => s.step !== 'sync');
  const sync = r.steps.find((s) => s.step === 'sync');
  const what = r.action === 'sync-then-no-gpu' ? 'did NOT switch to no-GPU mode' : 'did NOT power off';
  const why = r.stopped === 'syncFailed' ? `the final sync failed (${sync?.detail ?? '?'}), so no power action ran` : (power?.detail ?? r.stopped ?? '?');
  return `end action ${r.action}: the box ${what} and keeps billing${rate ? ` ${rate}` : ''}: ${why}`;
}

/**
 * A pass's conflicts between home and the box, each named: local files changed here, kept, the
 * box's version saved beside (`kept`); sync's own earlier copies the box's newer version
 * replaced, moved to .gpu-rent-previous/ (`replaced`). At most 5 names of each; the counts whole.
 */
export interface SyncConflicts {
  kept: { name: string; boxCopy: string }[];
  keptCount: number;
  replaced: { name: string; previous: string }[];
  replacedCount: number;
}

const CONFLICT_NAMES = 5;

export function syncConflictsOf(r: { kept?: readonly { name: string; boxCopy: string }[]; replaced?: readonly { name: string; previous: string }[] }): SyncConflicts | undefined {
  const kept = r.kept ?? [];
  const replaced = r.replaced ?? [];
  if (!kept.length && !replaced.length) return undefined;
  return { kept: kept.slice(0, CONFLICT_NAMES).map((k) => ({ name: k.name, boxCopy: k.boxCopy })), keptCount: kept.length, replaced: replaced.slice(0, CONFLICT_NAMES).map((k) => ({ name: k.name, previous: k.previous })), replacedCount: replaced.length };
}

/** The conflicts in English, names as JSON strings (box names are data): "; kept 1 file changed here …; replaced 2 …". */
export function syncConflictsText(c: SyncConflicts | undefined): string {
  if (!c) return '';
  const more = (shown: number, all: number) => (all > shown ? `, and ${all - shown} more` : '');
  const parts: string[] = [];
  if (c.keptCount) parts.push(`kept ${c.keptCount} file(s) changed here, the box's version saved beside: ${c.kept.map((k) => `${JSON.stringify(k.name)} (box's: ${JSON.stringify(k.boxCopy)})`).join(', ')}${more(c.kept.length, c.keptCount)}`);
  if (c.replacedCount) parts.push(`replaced ${c.replacedCount} earlier synced file(s) with the box's newer version, the earlier kept in .gpu-rent-previous/: ${c.replaced.map((k) => JSON.stringify(k.name)).join(', ')}${more(c.replaced.length, c.replacedCount)}`);
  return `; ${parts.join('; ')}`;
}

/** A sync report as an end-action outcome: ok only when nothing was skipped or interrupted (each pulled file is SHA-256 checked by the engine); its conflicts named. */
export function syncOutcomeOf(r: { files: number; bytes: number; skipped: readonly unknown[]; interrupted: boolean; verified: number; unchanged: number; kept?: readonly { name: string; boxCopy: string }[]; replaced?: readonly { name: string; previous: string }[] }): SyncOutcome {
  const ok = !r.interrupted && r.skipped.length === 0;
  const conflicts = r.interrupted ? undefined : syncConflictsOf(r);
  const c = conflicts ? { conflicts } : {};
  const detail = r.interrupted ? 'interrupted' : `${r.skipped.length ? `${r.skipped.length} file(s) skipped` : `${r.files} file(s) pulled, ${r.verified + r.unchanged} already here, ${conflicts ? 'verified' : 'all verified'}`}${syncConflictsText(conflicts)}`;
  const said: EndDetail = r.interrupted ? { code: 'sync-interrupted' } : r.skipped.length ? { code: 'sync-skipped', skipped: r.skipped.length, ...c } : { code: 'sync-verified', files: r.files, here: r.verified + r.unchanged, ...c };
  return { ok, files: r.files, bytes: r.bytes, detail, said };
}
