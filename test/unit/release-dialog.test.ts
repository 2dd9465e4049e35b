// Issue 22.3: the release question never loses unsynced work on Enter. Built as data
// (src/extension/releaseDialog.ts) and checked here: message, detail, buttons and their order.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseAnywayQuestion, releaseDialog } from '../../src/extension/releaseDialog';

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

  // Issue 41 bug 4.
  it('a folder the login cannot read is named with the box\'s words, not "could not be reached"; Cancel first', () => {
    const d = releaseDialog({ name: 'box', where: 'platform', accountLabel: 'AutoDL', check: { kind: 'checked', risk: risk([]), unreadable: [{ remoteDir: '/root/autodl-tmp/checkpoints', detail: 'remote folder /root/autodl-tmp/checkpoints cannot be read: Permission denied' }] } }, l10n);
    assert.deepEqual(order(d), ['cancel(close)', 'syncFirst', 'release']);
    assert.match(d.detail, /\/root\/autodl-tmp\/checkpoints could not be read by this login.*Permission denied/);
    assert.doesNotMatch(d.detail, /could not be reached/);
  });
  it('unreachable: the cause is given', () => {
    const d = releaseDialog({ name: 'box', where: 'list', check: { kind: 'notChecked', reason: 'unreachable', detail: 'connect ECONNREFUSED' } }, l10n);
    assert.match(d.detail, /could not be reached[^]*ECONNREFUSED/);
  });
  it('a stopped box: no Sync First (it can only fail); Power On (Platform) where the account can', () => {
    const stopped = (canPowerOn: boolean) => order(releaseDialog({ name: 'box', where: 'platform', accountLabel: 'AutoDL', check: { kind: 'notChecked', reason: 'notRunning' }, canPowerOn }, l10n));
    assert.deepEqual(stopped(true), ['cancel(close)', 'powerOn', 'release']);
    // VS Code focuses the first button that is not the close affordance: a safe Keep It, never Release Anyway.
    assert.deepEqual(stopped(false), ['cancel', 'cancel(close)', 'release']);
  });
  it('Release Anyway over unsynced checkpoints is asked once more, by name, Cancel first', () => {
    const q = releaseAnywayQuestion('box', ['checkpoint-40'], l10n)!;
    assert.deepEqual(order(q), ['cancel', 'cancel(close)', 'release']);
    assert.match(q.message, /Delete 1 unsynced checkpoint\(s\) with box/);
    assert.match(q.detail, /checkpoint-40/);
    assert.equal(releaseAnywayQuestion('box', [], l10n), undefined);
  });
  it('both release commands: Sync First asks again as a tree click (not with scripted arguments, which need confirm: true), a second question on Release Anyway, one notice after', () => {
    const power = readFileSync(join(__dirname, '..', '..', 'src/extension/commands/platforms/power.ts'), 'utf8');
    assert.doesNotMatch(power, /platformAction\(ctx, mon, action, \{ id: inst\.id \}\)/);
    for (const f of ['src/extension/commands/remote/release.ts', 'src/extension/commands/platforms/power.ts']) {
      const src = readFileSync(join(__dirname, '..', '..', f), 'utf8');
      assert.match(src, /confirmReleaseAnyway\(/, f);
      assert.match(src, /runReleaseCheck\(/, f);
    }
  });
});
