// One typed accessor for every setting. Values are clamped to the manifest's bounds here too,
// because settings.json can hold anything.
import { yuanToFen, type Fen } from '../core/money';

export interface Settings {
  /** 0 = no budget. */
  monthlyBudgetFen: Fen;
  statusBarEnabled: boolean;
  refreshIntervalSeconds: number;
  catalogOverride: Record<string, unknown>;
  syncRemoteDir: string;
  syncLocalDir: string;
  syncWatchIntervalSeconds: number;
  spotWarnHours: number;
  keepaliveSeconds: number;
  readyTimeoutSeconds: number;
  sshConfigPath: string;
}

export const SETTINGS_SECTION = 'gpuRent';

function num(v: unknown, def: number, min: number, max: number, integer = false): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) return def;
  const c = Math.min(max, Math.max(min, v));
  return integer ? Math.round(c) : c;
}

function str(v: unknown, def: string, max = 4096): string {
  return typeof v === 'string' && v.length <= max ? v : def;
}

/** `get` reads one key below `gpuRent.` (e.g. `budget.monthly`). */
export function readSettings(get: (key: string) => unknown): Settings {
  const override = get('catalog.overrides');
  const remoteDir = str(get('sync.remoteDir'), '/root/autodl-tmp/checkpoints');
  return {
    monthlyBudgetFen: yuanToFen(num(get('budget.monthly'), 0, 0, 10_000_000)),
    statusBarEnabled: get('statusBar.enabled') !== false,
    refreshIntervalSeconds: num(get('refresh.intervalSeconds'), 60, 15, 3600, true),
    catalogOverride: override && typeof override === 'object' && !Array.isArray(override) ? (override as Record<string, unknown>) : {},
    syncRemoteDir: remoteDir.startsWith('/') ? remoteDir : '/root/autodl-tmp/checkpoints',
    syncLocalDir: str(get('sync.localDir'), 'checkpoints') || 'checkpoints',
    syncWatchIntervalSeconds: num(get('sync.watchIntervalSeconds'), 300, 10, 86_400, true),
    spotWarnHours: num(get('training.spotWarnHours'), 1, 0, 1000),
    keepaliveSeconds: num(get('connection.keepaliveSeconds'), 15, 0, 600, true),
    readyTimeoutSeconds: num(get('connection.readyTimeoutSeconds'), 20, 1, 300, true),
    sshConfigPath: str(get('connection.sshConfigPath'), ''),
  };
}
