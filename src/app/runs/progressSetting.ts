// gpuRent.progress.pattern: the `progress:` pattern of a task file, for plain runs (Start Training, a
// job not launched from a task file). The same check as the task file's (core/progress/userPattern:
// named groups step, total, loss, epoch; the lint's linear-time analysis); a pattern that fails it
// is not used, and the reason is said in English or Simplified Chinese.
import { checkProgressPattern, patternProblem } from '../../core/progress/userPattern';

export const PROGRESS_PATTERN_SETTING = 'gpuRent.progress.pattern';

export interface ProgressSetting {
  /** The compiled pattern, or null (no setting, or one refused). */
  re: RegExp | null;
  /** Why the setting is not used, with what to change; null when it is used or empty. */
  problem: string | null;
}

/** The setting's value (untrusted: whatever settings.json holds) as a pattern the reader may run, or why not. */
export function progressSettingOf(raw: unknown, lang: 'en' | 'zh-cn' = 'en'): ProgressSetting {
  if (raw === undefined || raw === null || raw === '') return { re: null, problem: null };
  if (typeof raw !== 'string') return { re: null, problem: lang === 'zh-cn' ? `设置 ${PROGRESS_PATTERN_SETTING} 应是一个字符串（正则表达式）。` : `The setting ${PROGRESS_PATTERN_SETTING} must be a string (a regular expression).` };
  if (raw.trim() === '') return { re: null, problem: null };
  const c = checkProgressPattern(raw);
  if (c.ok) return { re: c.re, problem: null };
  const why = patternProblem(c, lang);
  return { re: null, problem: lang === 'zh-cn' ? `设置 ${PROGRESS_PATTERN_SETTING} 未启用：${why}` : `The setting ${PROGRESS_PATTERN_SETTING} is not used: ${why}` };
}
