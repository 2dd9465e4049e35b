// Issue 22.3: the release question never loses unsynced work on Enter. Built as data
// (src/extension/releaseDialog.ts) and checked here: message, detail, buttons and their order.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseDialog } from '../../src/extension/releaseDialog';

const l10n = { t: (m: string, ...a: (string | number | boolean)[]) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const risk = (files: { rel: string; size: number }[], unlisted = 0) => ({ remoteDir: '/root/autodl-tmp/ckpt', files: files.map((f) => ({ ...f, reason: 'missing' as const })), bytes: files.reduce((a, f) => a + f.size, 0), unlisted });
const order = (d: ReturnType<typeof releaseDialog>) => d.buttons.map((b) => `${b.choice}${b.isCloseAffordance ? '(close)' : ''}`);

describe('release dialog (issue 22.3)', () => {
  it('the box could not be checked: says unsynced work may be lost; Cancel is first and the close affordance; Sync First offered; Release is not first', () => {
    const d = releaseDialog({ name: 'box', where: 'platform', accountLabel: 'AutoDL', check: { kind: 'notChecked', reason: 'unreachable' }, extra: ['Price: ¥1.98/h'] }, l10n);
    assert.deepEqual(order(d), ['cancel(close)', 'syncFirst', 'release']);
    assert.match(d.detail, /checkpoint folders were NOT checked: unsynced work on it may be lost/);
    assert.match(d.detail, /Price: ¥1\.98\/h/);
    assert.equal(d.buttons[2]!.title, 'Release Anyway');
    assert.match(releaseDialog({ name: 'box', where: 'list', check: { kind: 'notChecked', reason: 'notRunning' } }, l10n).detail, /not running, so its checkpoint folders were NOT checked/);
  });
  it('unsynced files: they are named, Sync First comes first, Release Anyway is never first, Cancel closes', () => {
    const d = releaseDialog({ name: 'box', where: 'list', check: { kind: 'checked', risk: risk([{ rel: 'checkpoint-900/model.safetensors', size: 5_000_000 }]) } }, l10n);
    assert.deepEqual(order(d), ['syncFirst', 'release', 'cancel(close)']);
    assert.match(d.detail, /checkpoint-900\/model\.safetensors/);
    assert.equal(d.buttons[1]!.title, 'Release Anyway');
    assert.deepEqual(order(releaseDialog({ name: 'box', where: 'list', check: { kind: 'checked', risk: risk([], 2) } }, l10n)), ['syncFirst', 'release', 'cancel(close)'], 'unlisted folders count as at risk');
  });
  it('everything synced: Release, with Sync First still offered and never a destructive first button', () => {
    const d = releaseDialog({ name: 'box', where: 'list', check: { kind: 'checked', risk: risk([]) } }, l10n);
    assert.deepEqual(order(d), ['syncFirst', 'release', 'cancel(close)']);
    assert.match(d.detail, /Every checkpoint on the box is in the local copy/);
  });
  it('both release commands build their question with it (no second, older dialog)', () => {
    for (const f of ['src/extension/commands/remote/release.ts', 'src/extension/commands/platforms/power.ts']) {
      const src = readFileSync(join(__dirname, '..', '..', f), 'utf8');
      assert.match(src, /releaseDialog\(/, f);
      assert.doesNotMatch(src, /riskDetail\(/, f);
    }
  });
});
