// Issue 41 bug 8: the modal after a refused power-off says each thing once, gives the cause (a
// non-root login's `shutdown`), and offers a manual SSH box only what it has.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { nextBestActions } from '../../src/core/guards/powerOffer';
import { stillBillingModal, type StillBillingInput } from '../../src/extension/words/stillBillingText';

const l10n = { t: (m: string, ...a: (string | number | boolean)[]) => m.replace(/\{(\d+)\}/g, (_, i: string) => String(a[Number(i)])) };
const refused: StillBillingInput['cause'] = { kind: 'boxRefused', user: 'ubuntu', exitCode: 1, output: 'Failed to set wall message, ignoring: Interactive authentication required.' };
const sentences = (s: string) => s.split(/(?<=[.:])\s+|\n+/).map((x) => x.trim()).filter((x) => x.length > 12);

describe('refused power-off modal (issue 41 bug 8)', () => {
  it('a manual SSH box, non-root login: the cause names root / sudo -n, no account actions, no sentence twice', () => {
    const m = stillBillingModal({ job: 'job-1', name: 'box', rate: '¥2.10/h', action: 'powerOff', cause: refused, next: nextBestActions({ account: undefined }, 'box'), linked: false, backupArmed: false }, l10n);
    assert.equal(m.message, 'job-1: box did NOT power off and keeps billing ¥2.10/h.');
    assert.match(m.detail, /The login ubuntu is not root: `shutdown` needs root or password-less sudo \(`sudo -n`\)/);
    assert.match(m.detail, /Interactive authentication required/);
    assert.doesNotMatch(m.detail, /through the (platform )?account/i);
    assert.deepEqual(m.buttons.map((b) => b.action), ['release']);
    assert.equal(m.buttons[0]!.title, 'Mark Released…');
    const all = sentences(`${m.message}\n${m.detail}`);
    assert.equal(new Set(all).size, all.length, `a sentence said twice: ${all.join(' | ')}`);
    assert.doesNotMatch(m.detail, /did NOT power off/, 'the message says it; the detail does not repeat it');
  });
  it('a linked AutoDL Pro box whose account may power off: Power Off Through Account first', () => {
    const m = stillBillingModal({ job: 'job-1', name: 'box', rate: '¥1.98/h', action: 'powerOff', cause: refused, next: nextBestActions({ account: { kind: 'autodl-pro', powerAllowed: true } }, 'box'), linked: true, backupArmed: true }, l10n);
    assert.deepEqual(m.buttons.map((b) => b.action), ['powerOffThroughAccount', 'release']);
    assert.match(m.detail, /stays armed/);
  });
  it('the end of run builds its modal with it, and asks Power Off as a tree click (scripted arguments would need confirm: true)', () => {
    const src = readFileSync(join(__dirname, '..', '..', 'src/extension/services/endOfRun.ts'), 'utf8');
    assert.match(src, /stillBillingModal\(/);
    assert.doesNotMatch(src, /Commands\.powerOff, \{ id: inst\.id \}/);
  });
  it('a failed run’s end notice keeps its last line beside the cause (issue 41 friction)', () => {
    const src = readFileSync(join(__dirname, '..', '..', 'src/extension/services/endOfRun.ts'), 'utf8');
    assert.match(src, /r\.cause \? vscode\.l10n\.t\('Last line: \{0\}'/);
  });
});
