// One typed accessor for every setting. Values are clamped to the manifest's bounds here too,
// because settings.json can hold anything.
import type { Endpoints } from '../app/platforms/accounts';
import { yuanToFen, type Fen } from '../core/money';
import { DESCRIPTORS } from '../core/platforms/descriptors';
import { IDLE_PREFERENCES, type IdlePreference } from './guardDecisions';

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
  idleEnabled: boolean;
  idleUtilizationThresholdPct: number;
  idleWindowMinutes: number;
  idleAction: IdlePreference;
  ramDir: string;
  watchdogHookCommand: string;
  releaseWarnings: boolean;
  peakHoursNotice: boolean;
  /** Base URLs / endpoints of the platform APIs (tests, proxies); empty: the environment's, then the SDK's own. */
  platformEndpoints: Endpoints;
  /** Platform account ids whose power actions (on, off, release) are enabled; the rest are read-only. */
  platformPowerActions: string[];
  /** Accounts kept from release on their own (monitors/keepAlive.ts). */
  platformKeepAlive: string[];
  /** Seconds between platform polls while the view is visible (at least 60). */
  platformPollSeconds: number;
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

/** gpuRent.agent.budgetYuan: what the agent tools that spend may cost in all in one session, fen (0: none runs). */
export function agentBudgetFen(get: (key: string) => unknown): Fen {
  return yuanToFen(num(get('agent.budgetYuan'), 0, 0, 100_000));
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
    idleEnabled: get('idle.enabled') !== false,
    idleUtilizationThresholdPct: num(get('idle.utilizationThresholdPct'), 10, 1, 100, true),
    idleWindowMinutes: num(get('idle.windowMinutes'), 30, 1, 10_080, true),
    idleAction: (IDLE_PREFERENCES as readonly unknown[]).includes(get('idle.action')) ? (get('idle.action') as IdlePreference) : 'recommended',
    ramDir: ramDir(get('guards.ramDir')),
    watchdogHookCommand: str(get('watchdog.hookCommand'), '', 4000),
    releaseWarnings: get('guards.releaseWarnings') !== false,
    peakHoursNotice: get('guards.peakHoursNotice') !== false,
    // Each descriptor's endpoint setting (gpuRent.platforms.autodlApi, …).
    platformEndpoints: Object.fromEntries(DESCRIPTORS.map((d) => [d.endpoint.key, endpoint(get(d.endpoint.setting))])),
    platformPowerActions: Array.isArray(get('platforms.powerActions')) ? (get('platforms.powerActions') as unknown[]).filter((x): x is string => typeof x === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(x)).slice(0, 100) : [],
    platformPollSeconds: num(get('platforms.pollSeconds'), 60, 60, 3600, true),
    platformKeepAlive: Array.isArray(get('platforms.keepAlive')) ? (get('platforms.keepAlive') as unknown[]).filter((x): x is string => typeof x === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(x)).slice(0, 100) : [],
  };
}

const DEFAULT_RAM_DIR = '/dev/shm/gpu-rent';

/** An absolute folder on the box without '..' (the upload refuses anything else). */
function ramDir(v: unknown): string {
  const d = str(v, DEFAULT_RAM_DIR);
  return d.startsWith('/') && !d.split('/').includes('..') && !/[\0\n]/.test(d) ? d.replace(/\/+$/, '') || DEFAULT_RAM_DIR : DEFAULT_RAM_DIR;
}

/** An http(s) URL or host[:port] without spaces; anything else is ignored. */
function endpoint(v: unknown): string | undefined {
  const e = str(v, '', 2000).trim();
  return e && /^(https?:\/\/)?[A-Za-z0-9.-]+(:\d{1,5})?(\/[^\s]*)?$/.test(e) ? e : undefined;
}
