// A small, strict argument parser: every flag is declared, every value checked, and any
// mistake becomes a UsageError naming the flag and what it accepts (exit code 2).

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** `short`: a one-letter alias (`-i FILE` or `-iFILE` like ssh for `--identity FILE`). */
export type FlagSpec =
  | { type: 'boolean'; description: string; short?: string }
  | { type: 'string'; description: string; short?: string; valueName?: string; repeat?: boolean; choices?: readonly string[] }
  | {
      type: 'number';
      description: string;
      short?: string;
      valueName?: string;
      min?: number;
      max?: number;
      integer?: boolean;
      exclusiveMin?: boolean;
      /** Words after the minimum in messages, e.g. "(one GPU-second)". */
      minHint?: string;
    };

export type FlagSpecs = Record<string, FlagSpec>;

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

function describeAccepts(spec: FlagSpec): string {
  if (spec.type === 'number') {
    const kind = spec.integer ? 'a whole number' : 'a number';
    const bounds: string[] = [];
    const show = (v: number) => (Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(3))));
    if (spec.min !== undefined) bounds.push(`${spec.exclusiveMin ? '>' : '≥'} ${show(spec.min)}${spec.minHint ? ` ${spec.minHint}` : ''}`);
    if (spec.max !== undefined) bounds.push(`≤ ${show(spec.max)}`);
    return bounds.length ? `${kind} ${bounds.join(' and ')}` : kind;
  }
  if (spec.type === 'string' && spec.choices) return `one of ${spec.choices.join(', ')}`;
  return spec.type === 'string' ? (spec.valueName ?? 'a value') : 'no value';
}

function parseNumber(flag: string, raw: string, spec: Extract<FlagSpec, { type: 'number' }>): number {
  const trimmed = raw.trim();
  // Number('') is 0 and Number('0x10') is 16: accept only plain decimals.
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) {
    throw new UsageError(`--${flag} expects ${describeAccepts(spec)}, got "${raw}"`);
  }
  const value = Number(trimmed);
  const tooLow = spec.min !== undefined && (spec.exclusiveMin ? value <= spec.min : value < spec.min);
  const tooHigh = spec.max !== undefined && value > spec.max;
  if (!Number.isFinite(value) || tooLow || tooHigh || (spec.integer && !Number.isInteger(value))) {
    throw new UsageError(`--${flag} expects ${describeAccepts(spec)}, got "${raw}"`);
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
        throw new UsageError(`unknown flag --${name}${known ? ` (accepts ${known})` : ''}`);
      }
      if (spec.type === 'boolean') {
        if (eq !== -1) throw new UsageError(`--${name} takes no value`);
        flags[name] = true;
        continue;
      }
      let value: string | undefined;
      if (eq !== -1) value = arg.slice(eq + 1);
      else {
        value = argv[i + 1];
        if (value === undefined || (value.startsWith('--') && value.length > 2)) {
          throw new UsageError(`--${name} needs a value: ${describeAccepts(spec)}`);
        }
        i++;
      }
      if (spec.type === 'number') {
        // A repeated number would silently keep the last; refuse it as text flags are refused.
        if (name in flags) throw new UsageError(`--${name} was given twice`);
        flags[name] = parseNumber(name, value, spec);
      } else {
        if (spec.choices && !spec.choices.includes(value)) {
          throw new UsageError(`--${name} expects ${describeAccepts(spec)}, got "${value}"`);
        }
        if (spec.repeat) ((flags[name] ??= []) as string[]).push(value);
        else {
          if (name in flags) throw new UsageError(`--${name} was given twice`);
          flags[name] = value;
        }
      }
      continue;
    }
    positionals.push(arg);
  }
  if (opts.maxPositionals !== undefined && positionals.length > opts.maxPositionals) {
    const extra = positionals[opts.maxPositionals]!;
    throw new UsageError(
      extra.startsWith('-') ? `unknown option ${extra}` : `unexpected argument "${extra}"${opts.positionalNames ? ` (expects ${opts.positionalNames})` : ''}`,
    );
  }
  return { flags: flags as ParsedFlags<S>, positionals, rest };
}

export function formatHelp(usage: string, summary: string, specs: FlagSpecs): string {
  const lines = [`Usage: ${usage}`, '', summary, ''];
  const entries = Object.entries(specs);
  if (entries.length) {
    lines.push('Options:');
    const left = entries.map(([name, spec]) => `${spec.short ? `-${spec.short}, ` : ''}${spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.type === 'number' ? (spec.valueName ?? 'N') : (spec.valueName ?? 'VALUE')}`}`);
    const width = Math.max(...left.map((l) => l.length), 6) + 2;
    entries.forEach(([, spec], i) => lines.push(`  ${left[i]!.padEnd(width)}${spec.description}`));
    lines.push(`  ${'--help'.padEnd(width)}show this help`);
  }
  return lines.join('\n') + '\n';
}
