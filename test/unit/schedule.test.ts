import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { actionCapability, dueRules, lastDue, nextDue, parseScheduleAt, planAction, ScheduleParseError, ScheduleRuleSchema, scheduleAtText, type ScheduleRule } from '../../src/core/schedule';

/** Epoch seconds of a Beijing wall-clock time ("2026-12-07 17:00"). */
const bj = (s: string) => Date.parse(`${s.replace(' ', 'T')}:00+08:00`) / 1000;
const MIN = 60;

function rule(at: string, action: ScheduleRule['action'], extra: Partial<ScheduleRule> = {}): ScheduleRule {
  return ScheduleRuleSchema.parse({ id: extra.id ?? 'r0001', account: 'autodl-web', ref: 'inst-1', name: 'train', action, createdAt: bj('2026-11-01 00:00'), ...parseScheduleAt(at), ...extra });
}

describe('core/schedule: the compact --at form', () => {
  it('reads days, ranges (wrapping round the week), names and a 24-hour time', () => {
    assert.deepEqual(parseScheduleAt('mon-fri 17:00'), { days: [1, 2, 3, 4, 5], minute: 17 * 60 });
    assert.deepEqual(parseScheduleAt('daily 01:00'), { days: [1, 2, 3, 4, 5, 6, 7], minute: 60 });
    assert.deepEqual(parseScheduleAt('02:00'), { days: [1, 2, 3, 4, 5, 6, 7], minute: 120 });
    assert.deepEqual(parseScheduleAt('Sat, Sun 9:30'), { days: [6, 7], minute: 9 * 60 + 30 });
    assert.deepEqual(parseScheduleAt('fri-mon 23:59'), { days: [1, 5, 6, 7], minute: 23 * 60 + 59 });
    assert.deepEqual(parseScheduleAt('weekdays 00:00'), { days: [1, 2, 3, 4, 5], minute: 0 });
    assert.deepEqual(parseScheduleAt('tuesday,thu 08:05'), { days: [2, 4], minute: 8 * 60 + 5 });
    assert.equal(scheduleAtText(parseScheduleAt('monday - friday 17:00')), 'mon-fri 17:00');
    assert.equal(scheduleAtText(parseScheduleAt('sun,mon 7:05')), 'mon,sun 07:05');
  });

  it('refuses what is not a day or a time, saying which part', () => {
    for (const [bad, why] of [
      ['mon-fri 24:00', /not a time of day/],
      ['mon-fri 17', /not a time/],
      ['mon-fri 5pm', /not a time/],
      ['monkey 17:00', /not a day/],
      ['mon-wed-fri 17:00', /range/],
      ['', /expects days and a time/],
      ['mo 17:00', /not a day/],
      ['x'.repeat(200) + ' 17:00', /expects days/],
    ] as const) {
      assert.throws(() => parseScheduleAt(bad), (e: unknown) => e instanceof ScheduleParseError && why.test(e.message), bad);
    }
  });
});

describe('core/schedule: next and last due on the Beijing clock', () => {
  const weekdays17 = parseScheduleAt('mon-fri 17:00');
  it('over a week boundary: Friday 17:00 then Monday 17:00', () => {
    // 2026-12-04 is a Friday.
    assert.equal(nextDue(weekdays17, bj('2026-12-04 16:59')), bj('2026-12-04 17:00'));
    assert.equal(nextDue(weekdays17, bj('2026-12-04 17:00')), bj('2026-12-07 17:00'), 'strictly after: not the same minute again');
    assert.equal(nextDue(weekdays17, bj('2026-12-06 23:59')), bj('2026-12-07 17:00'));
    assert.equal(lastDue(weekdays17, bj('2026-12-07 09:00')), bj('2026-12-04 17:00'), 'Monday morning: the last one was Friday');
    assert.equal(lastDue(weekdays17, bj('2026-12-04 17:00')), bj('2026-12-04 17:00'));
  });
  it('at midnight: 00:00 is the start of the Beijing day, whatever the UTC day', () => {
    const midnight = parseScheduleAt('sat 00:00');
    // Sat 2026-12-05 00:00 Beijing is Fri 16:00 UTC.
    assert.equal(nextDue(midnight, bj('2026-12-04 23:59')), bj('2026-12-05 00:00'));
    assert.equal(new Date(nextDue(midnight, bj('2026-12-04 23:59')) * 1000).getUTCDay(), 5, 'a Friday in UTC');
    assert.equal(nextDue(midnight, bj('2026-12-05 00:00')), bj('2026-12-12 00:00'));
    const late = parseScheduleAt('daily 23:59');
    assert.equal(nextDue(late, bj('2026-12-31 23:59')), bj('2027-01-01 23:59'), 'across the year');
  });
  it('property: next is after now, at most a week on, on a rule day at the rule minute; last is at or before now', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }), fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 0, max: 4e9 }), (days, minute, now) => {
        const r = { days: [...days].sort(), minute };
        const n = nextDue(r, now);
        const l = lastDue(r, now);
        assert.ok(n > now && n - now <= 7 * 86400);
        assert.ok(l <= now && now - l < 7 * 86400);
        for (const t of [n, l]) {
          const local = new Date((t + 8 * 3600) * 1000);
          assert.equal(local.getUTCHours() * 60 + local.getUTCMinutes(), minute);
          assert.ok(days.includes(((local.getUTCDay() + 6) % 7) + 1));
        }
        assert.equal(nextDue(r, l), n, 'nothing comes round between the last and the next');
        assert.equal(lastDue(r, n), n);
      }),
      { numRuns: 300 },
    );
  });
});

describe('core/schedule: which rules are due since the last run', () => {
  const on = rule('mon-fri 17:00', 'power-on', { id: 'aon00001' });
  it('due inside the grace window, once: handled, it is not due again', () => {
    const v = dueRules([on], bj('2026-12-04 17:04'));
    assert.equal(v.length, 1);
    assert.equal(v[0]!.kind, 'due');
    assert.equal(v[0]!.at, bj('2026-12-04 17:00'));
    assert.deepEqual(dueRules([{ ...on, handledUntil: v[0]!.at }], bj('2026-12-04 17:09')), []);
    assert.deepEqual(dueRules([on], bj('2026-12-04 16:59')).filter((x) => x.at === bj('2026-12-04 17:00')), []);
  });
  it('the laptop slept past the window: missed, with how late, never due', () => {
    const handled = { ...on, handledUntil: bj('2026-12-03 17:00') };
    const v = dueRules([handled], bj('2026-12-04 17:31'));
    assert.deepEqual(v.map((x) => x.kind), ['missed']);
    assert.equal(v[0]!.kind === 'missed' && v[0]!.lateS, 31 * MIN);
    assert.equal(dueRules([handled], bj('2026-12-04 17:30'))[0]!.kind, 'due', '30 min is still inside');
    assert.equal(dueRules([handled], bj('2026-12-04 17:50'), 3600)[0]!.kind, 'due', 'a longer grace');
    assert.equal(dueRules([handled], bj('2026-12-04 18:01'), 3600)[0]!.kind, 'missed');
  });
  it('asleep over a weekend: only the latest time counts, the ones before are counted as missed too', () => {
    const handled = { ...on, handledUntil: bj('2026-12-01 17:00') };
    const v = dueRules([handled], bj('2026-12-07 17:10'));
    assert.equal(v.length, 1);
    assert.equal(v[0]!.kind, 'due');
    assert.equal(v[0]!.at, bj('2026-12-07 17:00'));
    assert.equal(v[0]!.kind === 'due' && v[0]!.missedBefore, 3, 'Wed, Thu, Fri');
  });
  it('a rule added after its time today is not due until its next time', () => {
    const added = { ...on, createdAt: bj('2026-12-04 17:10') };
    assert.deepEqual(dueRules([added], bj('2026-12-04 17:15')), []);
    assert.equal(dueRules([added], bj('2026-12-07 17:01'))[0]!.kind, 'due');
  });
  it('two rules of one instance due at once: only the later runs, the earlier is superseded', () => {
    const nogpu = rule('daily 01:00', 'no-gpu', { id: 'bng00001' });
    const off = rule('daily 01:20', 'power-off', { id: 'coff0001' });
    const other = rule('daily 01:00', 'power-off', { id: 'doth0001', ref: 'inst-2' });
    const v = dueRules([nogpu, off, other].map((r) => ({ ...r, handledUntil: bj('2026-12-04 02:00') })), bj('2026-12-05 01:25'));
    assert.deepEqual(v.map((x) => [x.rule.id, x.kind]), [['bng00001', 'superseded'], ['doth0001', 'due'], ['coff0001', 'due']]);
  });
  it('the schema refuses what a hand-edited file could hold', () => {
    assert.throws(() => ScheduleRuleSchema.parse({ ...on, minute: 1440 }));
    assert.throws(() => ScheduleRuleSchema.parse({ ...on, days: [] }));
    assert.throws(() => ScheduleRuleSchema.parse({ ...on, days: [0] }));
    assert.throws(() => ScheduleRuleSchema.parse({ ...on, action: 'release' }));
    assert.throws(() => ScheduleRuleSchema.parse({ ...on, id: '../x' }));
    assert.throws(() => ScheduleRuleSchema.parse({ ...on, extra: 1 }));
  });
});

describe('core/schedule: what an action does with the state it finds', () => {
  it('never starts billing to reach a state it would not be asked for', () => {
    assert.deepEqual(planAction('power-on', 'stopped'), { kind: 'powerOn', mode: 'gpu' });
    assert.deepEqual(planAction('power-on', 'running'), { kind: 'skip', reason: 'alreadyRunning' });
    assert.deepEqual(planAction('no-gpu', 'running'), { kind: 'switchToNoGpu' });
    assert.deepEqual(planAction('no-gpu', 'stopped'), { kind: 'skip', reason: 'stoppedNotStarted' });
    assert.deepEqual(planAction('power-off', 'noGpu'), { kind: 'powerOff' });
    assert.deepEqual(planAction('power-off', 'stopped'), { kind: 'skip', reason: 'alreadyStopped' });
    assert.deepEqual(planAction('power-off', 'starting'), { kind: 'skip', reason: 'changingState' });
  });
  it('no-GPU only where the account can; power-off in economical mode on the clouds', () => {
    assert.equal(actionCapability('autodl-pro', 'no-gpu'), undefined);
    assert.equal(actionCapability('autodl-web', 'no-gpu'), 'powerOn:noGpu');
    assert.equal(actionCapability('aliyun-ecs', 'power-off'), 'powerOff:stopCharging');
    assert.equal(actionCapability('autodl-pro', 'power-off'), 'powerOff:keep');
  });
});
