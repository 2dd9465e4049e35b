// The two translators the word tests use: English (the template filled in) and Chinese from the
// real bundle (l10n/bundle.l10n.zh-cn.json), failing on a sentence the bundle lacks.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestL10n {
  t(message: string, ...args: Array<string | number | boolean>): string;
}

export const zhBundle: Record<string, string> = JSON.parse(readFileSync(join(__dirname, '..', '..', 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8'));

/** `{0}`, `{1}`, … of `m` replaced by `a`. */
export const fill = (m: string, a: readonly unknown[]): string => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)]));

export const en: TestL10n = { t: (m, ...a) => fill(m, a) };

export const inZh: TestL10n = {
  t: (m, ...a) => {
    assert.ok(zhBundle[m], `no zh entry for: ${m}`);
    return fill(zhBundle[m]!, a);
  },
};
