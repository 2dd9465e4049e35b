// The translator every word module takes: vscode.l10n's shape (the English template in, its
// translation with `{0}`… filled out). The extension passes vscode.l10n, the CLI l10nIn(lang).

export interface L10n {
  t(message: string, ...args: (string | number | boolean)[]): string;
}

/** `{0}`-style placeholders filled from `values`, as vscode.l10n.t does; one without a value stays. */
export function fillTemplate(template: string, values: readonly (string | number | boolean)[]): string {
  return template.replace(/\{(\d)\}/g, (m, i: string) => (Number(i) < values.length ? String(values[Number(i)]) : m));
}

/** The English template with its `{0}`… filled: the words as they read without a translation. */
export const ENGLISH: L10n = { t: (message, ...args) => fillTemplate(message, args) };
