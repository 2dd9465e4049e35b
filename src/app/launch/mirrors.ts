// The setup step's mirrors on one box (issue 44 deliver 2): the workspace probe run where the
// task leaves a part to it, core/task/mirrors.ts's plan, and the line the launch says about it.
// The plan's variables and the turbo go to the setup job (and the environment rebuild) only.
import { mirrorFinding, mirrorPlan, mirrorsNeedProbe, MIRRORS_AUTO, type MirrorNote, type MirrorPlan, type MirrorFinding } from '../../core/task/mirrors';
import type { L10n } from '../../core/l10n';
import type { Task } from '../../core/task/types';
import type { RemoteConnection } from '../../remote/connection';

export interface MirrorProbeHooks {
  /** Tests: endpoint id → URL in place of the public hosts (core/workspace.ts's ENDPOINTS). */
  endpoints?: Partial<Record<string, string>>;
  /** Tests: the turbo file looked for and sourced in place of /etc/network_turbo. */
  turboFile?: string;
  /** Seconds each endpoint may take (default 4). */
  timeoutS?: number;
}

/** The plan for this box: probed only when the task leaves some part to the probe. */
export async function planMirrors(conn: RemoteConnection, task: Task, hooks: MirrorProbeHooks = {}): Promise<MirrorPlan & { turboFile?: string }> {
  const m = task.mirrors ?? MIRRORS_AUTO;
  if (!mirrorsNeedProbe(m, task.env)) return mirrorPlan(m, task.env, undefined);
  let found: MirrorFinding | undefined;
  let error: string | undefined;
  try {
    const { probeWorkspace } = await import('../../remote/workspaceProbe');
    const w = await probeWorkspace(conn, { ...(hooks.endpoints ? { endpoints: hooks.endpoints } : {}), ...(hooks.turboFile ? { turboFile: hooks.turboFile } : {}), timeoutS: hooks.timeoutS ?? 4 });
    if (w.advice && w.reach) found = mirrorFinding(w.advice, w.reach);
  } catch (e) {
    error = (e instanceof Error ? e.message : String(e)).replace(/\s+/g, ' ').slice(0, 200);
  }
  const plan = mirrorPlan(m, task.env, found, error);
  return hooks.turboFile ? { ...plan, turboFile: hooks.turboFile } : plan;
}

function noteText(n: MirrorNote, l10n: L10n): string {
  switch (n.code) {
    case 'hf-set':
      return n.by === 'task' ? l10n.t("HF_ENDPOINT={0} (the task's mirrors)", n.url) : n.by === 'probe-slow' ? l10n.t('HF_ENDPOINT={0} (Hugging Face is far slower from the box)', n.url) : l10n.t('HF_ENDPOINT={0} (Hugging Face is not reached from the box)', n.url);
    case 'hf-direct':
      return n.by === 'task' ? l10n.t("no HF_ENDPOINT (the task's mirrors)") : l10n.t('Hugging Face answers directly: no HF_ENDPOINT');
    case 'hf-modelscope':
      return l10n.t('neither Hugging Face nor hf-mirror answers from the box; ModelScope does (modelscope download)');
    case 'hf-none':
      return l10n.t('no model host answers from the box (Hugging Face, hf-mirror, ModelScope)');
    case 'pip-set':
      return n.by === 'task' ? l10n.t("PIP_INDEX_URL={0} (the task's mirrors)", n.url) : n.by === 'probe-slow' ? l10n.t('PIP_INDEX_URL={0} (the default pip index is far slower from the box)', n.url) : l10n.t('PIP_INDEX_URL={0} (the default pip index is not reached from the box)', n.url);
    case 'pip-default':
      return n.by === 'task' ? l10n.t("no PIP_INDEX_URL (the task's mirrors)") : l10n.t('the default pip index answers: no PIP_INDEX_URL');
    case 'pip-none':
      return l10n.t('no pip index answers from the box');
    case 'env-kept':
      return l10n.t("{0} from the task's env", n.name);
    case 'turbo-on':
      return l10n.t('{0} sourced for setup only, not for the run', n.file);
    case 'probe-failed':
      return l10n.t("the box's network probe failed ({0}); nothing set from it", n.detail);
  }
}

/** "setup: mirrors: HF_ENDPOINT=… (…); PIP_INDEX_URL=… (…); /etc/network_turbo sourced …"; undefined when there is nothing to say. */
export function mirrorsLine(plan: MirrorPlan & { turboFile?: string }, on: string, l10n: L10n): string | undefined {
  if (!plan.notes.length) return undefined;
  const notes = plan.notes.map((n) => noteText(n.code === 'turbo-on' && plan.turboFile ? { ...n, file: plan.turboFile } : n, l10n));
  return l10n.t('setup{0}: mirrors: {1}', on, notes.join('; '));
}
