// The calculator page's state and the few helpers every part of it uses: the VS Code API
// (messages out, setState), one element builder, the debounced recompute, and the names of
// platforms and billing modes in the page's language. The page is one browser document, so
// its state is one object here, written by the form, the results and the message loop.
import { builtinCatalog, type Catalog } from '../core/catalog';
import type { QuoteRow } from '../core/cost';
import { restoreState, type CalculatorInputs, type Locale, type MyRun, type WebviewMessage } from './protocol';
import { strings, type Strings } from './strings';

declare function acquireVsCodeApi(): { postMessage(msg: unknown): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();

const initialLocale: Locale = document.documentElement.lang.toLowerCase().startsWith('zh') ? 'zh-cn' : 'en';

export const page: {
  locale: Locale;
  S: Strings;
  catalog: Catalog;
  /** Why the catalog override was ignored, shown above the form. */
  overrideProblem: string | undefined;
  inputs: CalculatorInputs;
  /** The number fields whose text does not pass their bounds. */
  readonly invalid: Set<string>;
  breakEvenPlatform: string | undefined;
  /** From my runs: the user's finished runs the host sent (newest first). */
  myRuns: MyRun[];
} = {
  locale: initialLocale,
  S: strings(initialLocale),
  catalog: builtinCatalog(),
  overrideProblem: undefined,
  inputs: restoreState(vscode.getState()).inputs,
  invalid: new Set<string>(),
  breakEvenPlatform: undefined,
  myRuns: [],
};

export function saveState(): void {
  vscode.setState({ version: 1, inputs: page.inputs });
}

export function post(msg: WebviewMessage): void {
  vscode.postMessage(msg);
}

let compute: () => void = () => undefined;
let timer: ReturnType<typeof setTimeout> | undefined;

/** The recompute `schedule` runs (calculator.ts sets it once). */
export function onSchedule(run: () => void): void {
  compute = run;
}

/** Recomputes the results after `ms` without another change (a burst of keystrokes computes once). */
export function schedule(ms = 120): void {
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => compute(), ms);
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | undefined> = {}, ...children: (Node | string | undefined)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== undefined) el.append(c);
  return el;
}

export function platformName(id: string, row?: QuoteRow): string {
  const p = row?.platformName ?? page.catalog.platforms.find((q) => q.id === id)?.name;
  return p ? (page.locale === 'zh-cn' ? p.zh : p.en) : id;
}

export function modeName(m: string): string {
  const S = page.S;
  return m === 'hour' ? S.hour : m === 'day' ? S.day : m === 'week' ? S.week : m === 'month' ? S.month : S.spotMode;
}
