// The GPU check's report: a read-only Markdown document titled after the instance, opened
// rendered (VS Code's Markdown preview) in the current editor group, with the fix (fresh env
// first where advised) to copy or run. Where the preview is unavailable (the built-in Markdown
// extension disabled) the document opens as text.
import * as vscode from 'vscode';
import type { Diagnosis } from '../core/doctor';
import { fixScript } from '../core/doctor-fix';
import type { Instance } from '../core/instances';
import { forMarkdown, forMarkdownCode, forTerminal } from '../core/text';
import { MarkdownReportView } from './markdownReport';

export const DOCTOR_SCHEME = 'gpu-rent-doctor';

/** A file name from the instance's name: no path separators or control characters. */
function titleOf(inst: Instance): string {
   
  const name = inst.name.replace(/[\x00-\x1f\x7f/\\:*?"<>|#%]+/g, ' ').trim().slice(0, 80) || inst.id;
  return vscode.l10n.t('GPU check — {0}', name);
}

export class DoctorView implements vscode.Disposable {
  private readonly view = new MarkdownReportView(DOCTOR_SCHEME);

  /** Shows the report; returns the fix script's lines (null when there is none). */
  async show(inst: Instance, d: Diagnosis): Promise<string[] | null> {
    const { describeDiagnosis } = await import('../core/doctor-text');
    const lang = vscode.env.language.startsWith('zh') ? 'zh-cn' : 'en';
    const script = fixScript(d);
    const fence = (s: string) => s.replace(/```/g, '` ` `');
    // Box text (GPU name, versions, env names) is data: escaped in the heading, inert in the fences.
    const md = [`# ${forMarkdown(titleOf(inst))}`, '', '```text', forMarkdownCode(describeDiagnosis(d, lang)), '```', ...(script ? ['', `## ${vscode.l10n.t('Fix')}`, '', '```sh', ...script.map((l) => fence(forTerminal(l))), '```'] : [])].join('\n');
    await this.view.open(`/${inst.id}/${titleOf(inst)}.md`, md);
    return script;
  }

  dispose(): void {
    this.view.dispose();
  }
}
