// Which mirrors a launch's setup step uses (issue 44 deliver 2): the workspace probe's finding on
// the box (core/workspace.ts's advice) turned into HF_ENDPOINT / PIP_INDEX_URL for the setup job,
// and AutoDL's /etc/network_turbo sourced in that job's shell only (never the run's). The task's
// `mirrors:` key overrides each choice, and a variable the task's `env:` sets itself is never
// touched. Pure: the step says the notes in words (app/launch/words.ts).
import { reached, TURBO_FILE, type EndpointReach, type NetworkAdvice } from '../workspace';

export { TURBO_FILE } from '../workspace';

/** The task file's `mirrors:` after reading: each part auto (the probe decides), off, or a URL. */
export interface TaskMirrors {
  /** auto | direct (no HF_ENDPOINT) | an http(s) URL. */
  hfEndpoint: 'auto' | 'direct' | string;
  /** auto | default (no PIP_INDEX_URL) | an http(s) URL. */
  pipIndex: 'auto' | 'default' | string;
  /** auto (source /etc/network_turbo for setup when the box has it) | off. */
  turbo: 'auto' | 'off';
}

export const MIRRORS_AUTO: TaskMirrors = { hfEndpoint: 'auto', pipIndex: 'auto', turbo: 'auto' };
export const MIRRORS_OFF: TaskMirrors = { hfEndpoint: 'direct', pipIndex: 'default', turbo: 'off' };

/** An endpoint URL the task may name: http(s), no spaces, quotes or shell characters. */
export const MIRROR_URL_RE = /^https?:\/\/[A-Za-z0-9.-]{1,253}(?::\d{1,5})?(?:\/[A-Za-z0-9._~%/+-]{0,300})?$/;


export type MirrorNote =
  | { code: 'hf-set'; url: string; by: 'probe-unreached' | 'probe-slow' | 'task' }
  | { code: 'hf-direct'; by: 'probe' | 'task' }
  | { code: 'hf-modelscope' }
  | { code: 'hf-none' }
  | { code: 'pip-set'; url: string; by: 'probe-unreached' | 'probe-slow' | 'task' }
  | { code: 'pip-default'; by: 'probe' | 'task' }
  | { code: 'pip-none' }
  | { code: 'env-kept'; name: 'HF_ENDPOINT' | 'PIP_INDEX_URL' }
  | { code: 'turbo-on'; file: string }
  | { code: 'probe-failed'; detail: string };

export interface MirrorPlan {
  /** Variables for the setup job only (the task's own env is merged over them by the step). */
  env: Record<string, string>;
  /** Source the turbo file in the setup job's shell. */
  turbo: boolean;
  notes: MirrorNote[];
}

/** What the box's probe found (undefined when no probe ran or it failed). */
export interface MirrorFinding {
  advice: NetworkAdvice;
  /** Whether the default source was reached but far slower (vs not reached at all), per part. */
  hfReached: boolean;
  pipReached: boolean;
}

/** The probe's advice with whether each default source answered at all (a mirror chosen for speed vs for reach). */
export function mirrorFinding(advice: NetworkAdvice, reach: readonly EndpointReach[]): MirrorFinding {
  return { advice, hfReached: reached(reach.find((r) => r.id === 'hf')), pipReached: reached(reach.find((r) => r.id === 'pip')) };
}

/** Whether the setup step needs the box's probe: some part is auto and the task's env does not set it. */
export function mirrorsNeedProbe(m: TaskMirrors, env: Readonly<Record<string, string>>): boolean {
  return (m.hfEndpoint === 'auto' && !('HF_ENDPOINT' in env)) || (m.pipIndex === 'auto' && !('PIP_INDEX_URL' in env)) || m.turbo === 'auto';
}

export function mirrorPlan(m: TaskMirrors, env: Readonly<Record<string, string>>, found: MirrorFinding | undefined, probeError?: string): MirrorPlan {
  const out: MirrorPlan = { env: {}, turbo: false, notes: [] };
  if (probeError !== undefined) out.notes.push({ code: 'probe-failed', detail: probeError });
  const a = found?.advice;
  // Hugging Face
  if ('HF_ENDPOINT' in env) out.notes.push({ code: 'env-kept', name: 'HF_ENDPOINT' });
  else if (m.hfEndpoint === 'direct') out.notes.push({ code: 'hf-direct', by: 'task' });
  else if (m.hfEndpoint !== 'auto') {
    out.env.HF_ENDPOINT = m.hfEndpoint;
    out.notes.push({ code: 'hf-set', url: m.hfEndpoint, by: 'task' });
  } else if (a) {
    if (a.hfEndpoint) {
      out.env.HF_ENDPOINT = a.hfEndpoint;
      out.notes.push({ code: 'hf-set', url: a.hfEndpoint, by: found.hfReached ? 'probe-slow' : 'probe-unreached' });
    } else if (a.models === 'hf') out.notes.push({ code: 'hf-direct', by: 'probe' });
    else if (a.models === 'modelscope') out.notes.push({ code: 'hf-modelscope' });
    else out.notes.push({ code: 'hf-none' });
  }
  // pip
  if ('PIP_INDEX_URL' in env) out.notes.push({ code: 'env-kept', name: 'PIP_INDEX_URL' });
  else if (m.pipIndex === 'default') out.notes.push({ code: 'pip-default', by: 'task' });
  else if (m.pipIndex !== 'auto') {
    out.env.PIP_INDEX_URL = m.pipIndex;
    out.notes.push({ code: 'pip-set', url: m.pipIndex, by: 'task' });
  } else if (a) {
    if (a.pipIndex) {
      out.env.PIP_INDEX_URL = a.pipIndex;
      out.notes.push({ code: 'pip-set', url: a.pipIndex, by: found.pipReached ? 'probe-slow' : 'probe-unreached' });
    } else if (a.pipReachable) out.notes.push({ code: 'pip-default', by: 'probe' });
    else out.notes.push({ code: 'pip-none' });
  }
  if (m.turbo === 'auto' && a?.turbo) {
    out.turbo = true;
    out.notes.push({ code: 'turbo-on', file: TURBO_FILE });
  }
  return out;
}

/** The shell line that sources the turbo file in the setup job (a missing or failing file changes nothing). */
export function turboLine(file: string = TURBO_FILE): string {
  const q = `'${file.replace(/'/g, `'\\''`)}'`;
  return `if [ -f ${q} ]; then . ${q} || true; fi`;
}
