// A small, strict argument parser: every flag is declared, every value checked, and any
// mistake becomes a UsageError naming the flag and what it accepts (exit code 2).
import type { Bound } from '../core/bounds';

export class UsageError extends Error {
  /** `zh`: the same message in Chinese, printed under a Chinese locale (`--json` keeps the English). */
  constructor(
    message: string,
    readonly zh?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

type Lang = 'en' | 'zh-cn';

/**
 * `short`: a one-letter alias (`-i FILE` or `-iFILE` like ssh for `--identity FILE`); `zh`: the
 * description in Chinese for --help (required: the Chinese help has no English flag line).
 */
export type FlagSpec =
  | { type: 'boolean'; description: string; zh: string; short?: string }
  | { type: 'string'; description: string; zh: string; short?: string; valueName?: string; repeat?: boolean; choices?: readonly string[] }
  | {
      type: 'number';
      description: string;
      zh: string;
      short?: string;
      valueName?: string;
      min?: number;
      max?: number;
      integer?: boolean;
      exclusiveMin?: boolean;
      /** Words after the minimum in messages, e.g. "(one GPU-second)"; `minHintZh` in Chinese. */
      minHint?: string;
      minHintZh?: string;
    };

export type FlagSpecs = Record<string, FlagSpec>;

/**
 * A number flag's limits from its row of the one BOUNDS table (core/bounds.ts), so every command
 * taking the same quantity (--gpus, --hours, --reclaim-rate, a price) accepts the same values:
 * `{ type: 'number', ...bounded(BOUNDS.gpus), … }`.
 */
export function bounded(b: Bound): { min: number; max: number; integer?: true; exclusiveMin?: true } {
  return { min: b.min, max: b.max, ...(b.integer ? { integer: true as const } : {}), ...(b.exclusiveMin ? { exclusiveMin: true as const } : {}) };
}

export type ParsedFlags<S extends FlagSpecs> = {
  [K in keyof S]?: S[K] extends { type: 'boolean' }
    ? boolean
    : S[K] extends { type: 'number' }
      ? number
      : S[K] extends { repeat: true }
        ? string[]
        : string;
};

export interface Parsed<S extends FlagSpecs> {
  flags: ParsedFlags<S>;
  positionals: string[];
  /** Everything after a bare `--`, untouched. */
  rest: string[];
}

function describeAccepts(spec: FlagSpec, lang: Lang = 'en'): string {
  const zh = lang === 'zh-cn';
  if (spec.type === 'number') {
    const kind = spec.integer ? (zh ? '整数' : 'a whole number') : zh ? '数字' : 'a number';
    const bounds: string[] = [];
    const show = (v: number) => (Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(3))));
    const hint = zh ? (spec.minHintZh ?? spec.minHint) : spec.minHint;
    if (spec.min !== undefined) bounds.push(`${spec.exclusiveMin ? '>' : '≥'} ${show(spec.min)}${hint ? ` ${hint}` : ''}`);
    if (spec.max !== undefined) bounds.push(`≤ ${show(spec.max)}`);
    if (zh) return bounds.length ? `${kind}（${bounds.join('，')}）` : kind;
    return bounds.length ? `${kind} ${bounds.join(' and ')}` : kind;
  }
  if (spec.type === 'string' && spec.choices) return zh ? `以下之一：${spec.choices.join(', ')}` : `one of ${spec.choices.join(', ')}`;
  return spec.type === 'string' ? (spec.valueName ?? (zh ? '一个值' : 'a value')) : zh ? '不带值' : 'no value';
}

/** A UsageError in both languages; `msg(lang)` builds the text. */
function usage(msg: (lang: Lang) => string): UsageError {
  return new UsageError(msg('en'), msg('zh-cn'));
}

function parseNumber(flag: string, raw: string, spec: Extract<FlagSpec, { type: 'number' }>): number {
  const trimmed = raw.trim();
  // Number('') is 0 and Number('0x10') is 16: accept only plain decimals.
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) {
    throw usage((l) => (l === 'en' ? `--${flag} expects ${describeAccepts(spec)}, got "${raw}"` : `--${flag} 需要${describeAccepts(spec, l)}，收到 "${raw}"`));
  }
  const value = Number(trimmed);
  const tooLow = spec.min !== undefined && (spec.exclusiveMin ? value <= spec.min : value < spec.min);
  const tooHigh = spec.max !== undefined && value > spec.max;
  if (!Number.isFinite(value) || tooLow || tooHigh || (spec.integer && !Number.isInteger(value))) {
    throw usage((l) => (l === 'en' ? `--${flag} expects ${describeAccepts(spec)}, got "${raw}"` : `--${flag} 需要${describeAccepts(spec, l)}，收到 "${raw}"`));
  }
  return value;
}

export function parseArgs<S extends FlagSpecs>(argv: readonly string[], specs: S, opts: { maxPositionals?: number; positionalNames?: string } = {}): Parsed<S> {
  const flags: Record<string, unknown> = {};
  const positionals: string[] = [];
  let rest: string[] = [];
  const shortOf = new Map<string, string>();
  for (const [name, spec] of Object.entries(specs)) if (spec.short) shortOf.set(spec.short, name);
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i]!;
    if (arg === '--') {
      rest = argv.slice(i + 1);
      break;
    }
    // `-i FILE` / `-iFILE`: a declared short alias reads as its long flag.
    if (/^-[A-Za-z]/.test(arg) && shortOf.has(arg[1]!)) {
      const long = shortOf.get(arg[1]!)!;
      arg = arg.length > 2 ? `--${long}=${arg.slice(2)}` : `--${long}`;
    }
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const spec = specs[name];
      if (!spec) {
        const known = Object.keys(specs).map((k) => `--${k}`).join(', ');
        throw usage((l) => (l === 'en' ? `unknown flag --${name}${known ? ` (accepts ${known})` : ''}` : `未知选项 --${name}${known ? `（可用：${known}）` : ''}`));
      }
      if (spec.type === 'boolean') {
        if (eq !== -1) throw usage((l) => (l === 'en' ? `--${name} takes no value` : `--${name} 不带值`));
        flags[name] = true;
        continue;
      }
      let value: string | undefined;
      if (eq !== -1) value = arg.slice(eq + 1);
      else {
        value = argv[i + 1];
        if (value === undefined || (value.startsWith('--') && value.length > 2)) {
          throw usage((l) => (l === 'en' ? `--${name} needs a value: ${describeAccepts(spec)}` : `--${name} 需要一个值：${describeAccepts(spec, l)}`));
        }
        i++;
      }
      if (spec.type === 'number') {
        // A repeated number would silently keep the last; refuse it as text flags are refused.
        if (name in flags) throw usage((l) => (l === 'en' ? `--${name} was given twice` : `--${name} 给了两次`));
        flags[name] = parseNumber(name, value, spec);
      } else {
        if (spec.choices && !spec.choices.includes(value)) {
          throw usage((l) => (l === 'en' ? `--${name} expects ${describeAccepts(spec)}, got "${value}"` : `--${name} 需要${describeAccepts(spec, l)}，收到 "${value}"`));
        }
        if (spec.repeat) ((flags[name] ??= []) as string[]).push(value);
        else {
          if (name in flags) throw usage((l) => (l === 'en' ? `--${name} was given twice` : `--${name} 给了两次`));
          flags[name] = value;
        }
      }
      continue;
    }
    positionals.push(arg);
  }
  if (opts.maxPositionals !== undefined && positionals.length > opts.maxPositionals) {
    const extra = positionals[opts.maxPositionals]!;
    throw usage((l) =>
      l === 'en'
        ? extra.startsWith('-')
          ? `unknown option ${extra}`
          : `unexpected argument "${extra}"${opts.positionalNames ? ` (expects ${opts.positionalNames})` : ''}`
        : extra.startsWith('-')
          ? `未知选项 ${extra}`
          : `多余的参数 "${extra}"${opts.positionalNames ? `（应为 ${opts.positionalNames}）` : ''}`,
    );
  }
  return { flags: flags as ParsedFlags<S>, positionals, rest };
}

/** `lang` zh-cn: Chinese heads, `summaryZh` and each flag's `zh` where given (else its English). */
export function formatHelp(usageLine: string, summary: string, specs: FlagSpecs, lang: Lang = 'en', summaryZh?: string): string {
  const zh = lang === 'zh-cn';
  const lines = [`${zh ? '用法：' : 'Usage: '}${usageLine}`, '', zh && summaryZh ? summaryZh : summary, ''];
  const entries = Object.entries(specs);
  if (entries.length) {
    lines.push(zh ? '选项：' : 'Options:');
    const left = entries.map(([name, spec]) => `${spec.short ? `-${spec.short}, ` : ''}${spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.type === 'number' ? (spec.valueName ?? 'N') : (spec.valueName ?? 'VALUE')}`}`);
    const width = Math.max(...left.map((l) => l.length), 6) + 2;
    entries.forEach(([, spec], i) => lines.push(`  ${left[i]!.padEnd(width)}${zh && spec.zh ? spec.zh : spec.description}`));
    lines.push(`  ${'--help'.padEnd(width)}${zh ? '显示此帮助' : 'show this help'}`);
  }
  return lines.join('\n') + '\n';
}
