// A progress pattern the user teaches the reader (the task file's `progress:`): a regular expression
// with named groups `step`, `total`, `loss`, `epoch` (any of them), read on every log line before the
// built-in formats. Checked before it is used, by the same analysis the project's lint runs over the
// built-in patterns (scslre, which eslint-plugin-regexp's no-super-linear-* rules use): a pattern that
// can take super-linear time on a long line of box output is refused with a clear error.
import { RegExpParser } from '@eslint-community/regexpp';
import { analyse } from 'scslre';
import { PROGRESS_GROUPS } from './patternRead';

export { PROGRESS_GROUPS };
export const MAX_PATTERN = 400;

export type PatternCheck =
  | { ok: true; re: RegExp }
  | { ok: false; code: 'too-long' | 'syntax' | 'no-group' | 'unknown-group' | 'super-linear' | 'backreference'; detail: string };

/** `/` written as `\/` for the parser's literal form (a `/` already escaped stays as it is). */
function asLiteral(src: string): string {
  let out = '';
  let escaped = false;
  for (const c of src) {
    if (escaped) {
      out += c;
      escaped = false;
    } else if (c === '\\') {
      out += c;
      escaped = true;
    } else out += c === '/' ? '\\/' : c;
  }
  return `/${out}/`;
}

/** Whether `src` is a progress pattern the reader may run on every log line, and the compiled pattern. */
export function checkProgressPattern(src: string): PatternCheck {
  if (src.length === 0 || src.length > MAX_PATTERN) return { ok: false, code: 'too-long', detail: `${src.length} characters (1 to ${MAX_PATTERN})` };
  let re: RegExp;
  try {
    re = new RegExp(src);
  } catch (e) {
    return { ok: false, code: 'syntax', detail: e instanceof Error ? e.message : String(e) };
  }
  let literal;
  try {
    literal = new RegExpParser({ ecmaVersion: 2022 }).parseLiteral(asLiteral(src));
  } catch (e) {
    return { ok: false, code: 'syntax', detail: e instanceof Error ? e.message : String(e) };
  }
  const names: string[] = [];
  let backref = false;
  const walk = (n: unknown): void => {
    if (!n || typeof n !== 'object') return;
    const node = n as { type?: string; name?: string | null; [k: string]: unknown };
    if (node.type === 'CapturingGroup' && typeof node.name === 'string') names.push(node.name);
    if (node.type === 'Backreference') backref = true;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'parent' || k === 'resolved' || k === 'references') continue;
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') walk(v);
    }
  };
  walk(literal.pattern);
  const unknown = names.filter((n) => !(PROGRESS_GROUPS as readonly string[]).includes(n));
  if (unknown.length) return { ok: false, code: 'unknown-group', detail: unknown.join(', ') };
  if (!names.length) return { ok: false, code: 'no-group', detail: PROGRESS_GROUPS.join(', ') };
  if (backref) return { ok: false, code: 'backreference', detail: 'a backreference (\\1, \\k<name>)' };
  const reports = analyse(literal, { reportTypes: { Move: true, Self: true, Trade: true } }).reports;
  if (reports.length) {
    const r = reports[0]!;
    const at = 'quant' in r ? r.quant.raw : r.type === 'Trade' ? `${r.startQuant.raw} … ${r.endQuant.raw}` : '';
    return { ok: false, code: 'super-linear', detail: at };
  }
  return { ok: true, re };
}

/** Why a pattern was refused, in English or Simplified Chinese, with what to do. */
export function patternProblem(c: Extract<PatternCheck, { ok: false }>, lang: 'en' | 'zh-cn' = 'en'): string {
  const zh = lang === 'zh-cn';
  switch (c.code) {
    case 'too-long':
      return zh ? `progress 模式长度不对：${c.detail}。` : `progress pattern length: ${c.detail}.`;
    case 'syntax':
      return zh ? `progress 不是有效的正则表达式（JavaScript 语法）：${c.detail}` : `progress is not a valid regular expression (JavaScript syntax): ${c.detail}`;
    case 'no-group':
      return zh ? `progress 模式需要至少一个命名分组：${c.detail}，例如 step (?<step>\\d+)/(?<total>\\d+)。` : `progress needs at least one named group of ${c.detail}, e.g. step (?<step>\\d+)/(?<total>\\d+).`;
    case 'unknown-group':
      return zh ? `progress 模式里有不认识的命名分组：${c.detail}（只能用 step、total、loss、epoch）。` : `progress names a group it does not know: ${c.detail} (only step, total, loss, epoch).`;
    case 'backreference':
      return zh ? 'progress 模式不能用反向引用（\\1、\\k<name>）：它们无法保证线性时间。' : 'progress may not use a backreference (\\1, \\k<name>): it cannot be kept linear.';
    case 'super-linear':
      return zh
        ? `progress 模式在很长的一行上可能耗时超线性（${c.detail}）：相邻的两段能匹配同样的字符。请让它们互斥（例如用 [^|]* 或 .{0,200} 代替 .*），或用 ^ 锚定开头。`
        : `progress can take super-linear time on a long line (${c.detail}): two neighbouring parts can match the same characters. Make them exclusive (e.g. [^|]* or .{0,200} instead of .*) or anchor the start with ^.`;
  }
}
