// Launch Status: where each task of the workspace's gpu-rent.yaml is (the same state files
// `gpu-rent launch --status` reads), as a read-only Markdown document opened rendered, the way
// the GPU check's report is. Box and platform text (labels, event lines, details) is data:
// escaped with forMarkdown in prose, inert in a fenced block.
import * as vscode from 'vscode';
import { launchStatus } from '../../../app/launch/run';
import { configHome } from '../../../app/platforms/accountFile';
import type { LaunchState } from '../../../core/task/launch';
import { forMarkdown } from '../../../core/text';
import { isScripted } from '../registry';
import { readWorkspaceTaskFile } from './taskFile';
import { launchMarkdown } from './reportText';
import { MarkdownReportView } from '../../markdownReport';

export const LAUNCH_SCHEME = 'gpu-rent-launch';

export class LaunchReportView implements vscode.Disposable {
  private readonly view = new MarkdownReportView(LAUNCH_SCHEME);

  show(md: string): Promise<void> {
    return this.view.open(`/${vscode.l10n.t('Launch Status')}.md`, md);
  }

  dispose(): void {
    this.view.dispose();
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
    parts.push(launchMarkdown(name, s, now, vscode.l10n));
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
