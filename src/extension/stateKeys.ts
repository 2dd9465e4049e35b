// Every key the extension keeps in its state memento (files under globalStorageUri, moved once
// from globalState: stateHome.ts), with a zod schema for what is read back. readState drops a
// value that fails its schema (read as absent), as the instance store does with an unreadable list;
// no other file writes a `gpuRent.*` state key literally (unit state-keys).
import { z } from 'zod';

/** A state key and the shape of what is kept under it. */
export interface StateKey<T> {
  readonly key: string;
  readonly schema: z.ZodType<T>;
}

/** The part of a vscode.Memento these helpers use (the state files and globalState both fit). */
export interface StateReader {
  get<T>(key: string): T | undefined;
}
export interface StateWriter {
  update(key: string, value: unknown): PromiseLike<void>;
}

const key = <T>(k: string, schema: z.ZodType<T>): StateKey<T> => ({ key: k, schema });

const BudgetMemoSchema = z.object({ month: z.string(), level: z.enum(['none', 'ok', 'warning', 'exceeded']) });

export const StateKeys = {
  // Lists with their own readers, which keep an unreadable value aside under the `…unreadable` key
  // rather than dropping it: the instance store (store.ts), the platform accounts
  // (services/accountStore.ts), the storage list (storeList.ts), the notify channels
  // (notifyChannels.ts). Read there, not through readState.
  instances: key('gpuRent.instances', z.unknown()),
  instancesUnreadable: key('gpuRent.instances.unreadable', z.unknown()),
  platformAccounts: key('gpuRent.platformAccounts', z.unknown()),
  platformAccountsUnreadable: key('gpuRent.platformAccounts.unreadable', z.unknown()),
  stores: key('gpuRent.stores', z.unknown()),
  notifyChannels: key('gpuRent.notifyChannels', z.unknown()),
  /** The budget level already announced this month (statusBar.ts). */
  budgetNotice: key('gpuRent.budgetNotice', BudgetMemoSchema),
  /** Release warnings already shown, per instance (monitors/releaseWarnings.ts). */
  releaseWarnings: key('gpuRent.releaseWarnings', z.record(z.string(), z.string())),
  /** Checkpoint folders already offered a .gitignore line (commands/sync/syncNow.ts). */
  gitignoreAsked: key('gpuRent.gitignoreAsked', z.array(z.string())),
  /** Uploads to a box's memory, per instance; each entry checked by guardDecisions' ramMemoOf. */
  ramUploads: key('gpuRent.ramUploads', z.unknown()),
  /** Launch ends already announced while away (commands/launch/awayNotice.ts). */
  launchAwayAnnounced: key('gpuRent.launch.awayAnnounced', z.array(z.string())),
} as const;

/** Per-instance and per-run keys. */
export const StateKeysFor = {
  /** The card-check finding last warned about for an instance (services/probe.ts). */
  cardWarning: (instId: string) => key(`gpuRent.cardWarning.${instId}`, z.string()),
  /** The end action chosen when a job started (services/endOfRun.ts); checked there by isEndAction. */
  endAction: (instId: string, jobId: string) => key(`gpuRent.run.endAction.${instId}.${jobId}`, z.string()),
  /** A run being stopped because its loss diverged (services/endOfRun.ts). */
  divergedStop: (instId: string, jobId: string) => key(`gpuRent.run.divergedStop.${instId}.${jobId}`, z.object({ value: z.enum(['nan', 'inf', '-inf']), readings: z.number(), step: z.unknown().optional() })),
} as const;

/** The prefixes of the keys StateKeysFor builds (for the unit test that no other file names them). */
export const STATE_KEY_PREFIXES = ['gpuRent.cardWarning.', 'gpuRent.run.endAction.', 'gpuRent.run.divergedStop.'] as const;

/** What is kept under `k`, or undefined when nothing is or it fails the key's schema (dropped, not thrown). */
export function readState<T>(memento: StateReader, k: StateKey<T>): T | undefined {
  const raw = memento.get<unknown>(k.key);
  if (raw === undefined) return undefined;
  const r = k.schema.safeParse(raw);
  return r.success ? r.data : undefined;
}

/** Keeps `value` under `k` (undefined removes it). */
export function writeState<T>(memento: StateWriter, k: StateKey<T>, value: T | undefined): PromiseLike<void> {
  return memento.update(k.key, value);
}
