// Launch Status: where each task of the workspace's gpu-rent.yaml is (the same state files
// `gpu-rent launch --status` reads), as a read-only Markdown document opened rendered, the way
// the GPU check's report is. Box and platform text (labels, event lines, details) is data:
// escaped with forMarkdown in prose, inert in a fenced block.
import * as vscode from 'vscode';
import { launchStatus } from '../../../app/launch/run';
import { configHome } from '../../../app/platforms/accountFile';
import { formatCny } from '../../../core/money';
import { spentFen, type LaunchOutcome, type LaunchState } from '../../../core/task/launch';
import { forMarkdown, forMarkdownCode } from '../../../core/text';
import { isScripted } from '../registry';
import { readWorkspaceTaskFile } from './taskFile';
import { outcomeLine } from './treeText';

export const LAUNCH_SCHEME = 'gpu-rent-launch';

const when = (s: number) => new Date(s * 1000).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
const clock = (s: number) => new Date(s * 1000).toISOString().slice(11, 19);

export function outcomeWords(k: LaunchOutcome): string {
  switch (k) {
    case 'finished':
      return vscode.l10n.t('finished');
    case 'smoke':
      return vscode.l10n.t('smoke test done');
    case 'budget':
      return vscode.l10n.t('stopped by the budget cap');
    case 'doctor':
      return vscode.l10n.t('stopped by the GPU check');
    case 'runFailed':
      return vscode.l10n.t('the run failed');
    case 'failed':
      return vscode.l10n.t('a step failed');
    case 'noBox':
      return vscode.l10n.t('no instance could be had');
  }
}

export function spentText(s: LaunchState, now: number): string {
  const spent = spentFen(s, now);
  return spent.unknown ? vscode.l10n.t('? (a box’s price is not known; {0} known)', formatCny(spent.fen)) : formatCny(spent.fen);
}

/** One task's section of the report. */
export function launchMarkdown(name: string, s: LaunchState | undefined, now: number): string {
  const md = forMarkdown;
  if (!s) return [`## ${md(name)}`, '', vscode.l10n.t('Not launched yet.'), ''].join('\n');
  const p = s.progress;
  const lines = [
    `## ${md(name)} — ${md(s.phase)}${s.smoke ? ` (${vscode.l10n.t('smoke test')})` : ''}`,
    '',
    ...(s.outcome ? [`- **${vscode.l10n.t('Outcome')}**: ${md(outcomeLine(outcomeWords(s.outcome.kind), s.outcome.detail))}`] : []),
    `- **${vscode.l10n.t('Started')}**: ${md(when(s.startedAt))}, ${vscode.l10n.t('updated')} ${md(clock(s.updatedAt))}`,
    `- **${vscode.l10n.t('Box')}**: ${s.box ? `${md(s.box.label)}, ${s.box.priceFenPerHour === null ? '? ¥/h' : md(`${formatCny(s.box.priceFenPerHour)}/h`)}${s.box.spot ? `, ${vscode.l10n.t('spot')}` : ''}` : vscode.l10n.t('none held')}`,
    `- **${vscode.l10n.t('Spent')}**: ${md(spentText(s, now))} · #recoveries ${s.recoveries}`,
    ...(p ? [`- **${vscode.l10n.t('Progress')}**: ${md(`${p.step ?? '?'}/${p.total ?? '?'}`)}${p.loss !== null ? ` · loss ${md(String(p.loss))}` : ''}${p.etaSeconds !== null ? ` · ${vscode.l10n.t('ETA {0} min', Math.round(p.etaSeconds / 60))}` : ''}${p.costToFinishFen !== null ? ` · ${vscode.l10n.t('{0} to finish', md(formatCny(p.costToFinishFen)))}` : ''}`] : []),
    ...(s.lastSync ? [`- **${vscode.l10n.t('Last verified sync')}**: ${md(clock(s.lastSync.at))}, ${vscode.l10n.t('{0} file(s)', s.lastSync.files)}${s.lastSync.checkpoint ? `, ${vscode.l10n.t('newest {0}', md(s.lastSync.checkpoint))}` : ''}`] : []),
    ...(s.end ? [`- **${vscode.l10n.t('End')}** (${md(s.end.action)}): ${s.end.ok ? vscode.l10n.t('done') : `**${vscode.l10n.t('NOT done')}**`}${s.end.stillBilling ? ` — **${vscode.l10n.t('STILL BILLING')}**` : ''}: ${md(s.end.detail)}`] : []),
    ...s.boxes.map((b) => `- ${vscode.l10n.t('Earlier box')}: ${md(b.label)} (${md(b.leftBecause ?? 'left')})`),
    '',
    `### ${vscode.l10n.t('Recent events')}`,
    '',
    '```text',
    ...s.events.slice(-20).map((e) => forMarkdownCode(`${clock(e.at)} ${e.text}`).replace(/\n/g, ' ')),
    '```',
    '',
  ];
  return lines.join('\n');
}

export class LaunchReportView implements vscode.Disposable {
  private readonly docs = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(LAUNCH_SCHEME, { onDidChange: this.changed.event, provideTextDocumentContent: (uri) => this.docs.get(uri.toString()) ?? '' });
  }

  async show(md: string): Promise<void> {
    const uri = vscode.Uri.from({ scheme: LAUNCH_SCHEME, path: `/${vscode.l10n.t('Launch Status')}.md` });
    this.docs.set(uri.toString(), md);
    this.changed.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    const rendered = await Promise.resolve(vscode.commands.executeCommand('markdown.showPreview', uri)).then(
      () => true,
      () => false,
    );
    if (!rendered) await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: false });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}

/** The report of every task in the file; the states for a script. */
export async function statusReport(file: string, names: readonly string[], now: number): Promise<{ markdown: string; states: Record<string, LaunchState | null> }> {
  const home = configHome(process.env);
  const states: Record<string, LaunchState | null> = {};
  const parts = [`# ${forMarkdown(vscode.l10n.t('Launch Status — {0}', file))}`, ''];
  for (const name of names) {
    const s = await launchStatus(home, file, name);
    states[name] = s ?? null;
    parts.push(launchMarkdown(name, s, now));
  }
  return { markdown: parts.join('\n'), states };
}

/** gpuRent.launchStatus: the report opened rendered; a script (`{ file }`) gets the markdown and the states. */
export async function showLaunchStatus(view: LaunchReportView, now: () => number, arg: unknown): Promise<{ markdown: string; states: Record<string, LaunchState | null> }> {
  const scriptedFile = isScripted(arg) && typeof arg.file === 'string' ? arg.file : undefined;
  const { file, tasks } = await readWorkspaceTaskFile(arg, scriptedFile);
  const r = await statusReport(file, tasks.map((t) => t.name), now());
  await view.show(r.markdown);
  return r;
}
