// gpuRent.progress.pattern → the runs the extension watches (app/runs/progressSetting checks it; a
// refused pattern is said once per change, in the UI language, and the built-in reader goes on).
import * as vscode from 'vscode';
import { PROGRESS_PATTERN_SETTING, progressSettingOf } from '../app/runs/progressSetting';
import type { RunWatch } from '../app/runs/watch';
import { showError } from './notify';

export function watchProgressSetting(runs: RunWatch): vscode.Disposable {
  const apply = (): void => {
    const lang = vscode.env.language.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en';
    const s = progressSettingOf(vscode.workspace.getConfiguration('gpuRent').get('progress.pattern'), lang);
    runs.setPattern(s.re);
    if (s.problem) void showError(s.problem);
  };
  apply();
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration(PROGRESS_PATTERN_SETTING)) apply();
  });
}
