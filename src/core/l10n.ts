// The translator every word module takes: vscode.l10n's shape (the English template in, its
// translation with `{0}`… filled out). The extension passes vscode.l10n, the CLI l10nIn(lang).

export interface L10n {
  t(message: string, ...args: (string | number | boolean)[]): string;
}
