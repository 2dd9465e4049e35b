// Bounds equal everywhere (issue 45): every command taking the same quantity takes its limits from
// the one BOUNDS table (core/bounds.ts), so `--gpus 9` is refused by each command that has --gpus
// and `--gpus 8` accepted by each (before, spot-check and the pricing guards took up to 64 where
// quote refused 9, and run took up to 1024). The same for the reclaim rate, the job's hours and
// the prices the guards and jobs share.
import { strict as assert } from 'node:assert';
import { UsageError } from '../../src/cli/args';
import type { CliCommand, CliIO } from '../../src/cli/command';
import { guardCommands } from '../../src/cli/guard-commands';
import { command as create } from '../../src/cli/commands/create';
import { command as grab } from '../../src/cli/commands/grab';
import { command as jobs } from '../../src/cli/commands/jobs';
import { command as quote } from '../../src/cli/commands/quote';
import { command as launch } from '../../src/cli/commands/launch';
import { command as clone } from '../../src/cli/commands/clone';
import { parseGpus } from '../../src/cli/commands/run';
import { BOUNDS, type Bound } from '../../src/core/bounds';

const EN = { LC_ALL: '', LC_MESSAGES: '', LANG: 'C.UTF-8' };
const io: CliIO = { stdout: () => undefined, stderr: () => undefined, readStdin: async () => '', env: EN, isTTY: false };
const ALL: CliCommand[] = [quote, create, grab, jobs, launch, clone, ...guardCommands];

/** What the command says to `--FLAG VALUE` followed by an unknown flag: the flag's refusal, or (value accepted) the unknown flag's. */
async function verdict(c: CliCommand, flag: string, value: number): Promise<'refused' | 'accepted'> {
  const err = await c.run([`--${flag}`, String(value), '--no-such-flag'], io).then(
    () => assert.fail(`${c.name} ran with --no-such-flag`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof UsageError, `${c.name}: ${String(err)}`);
  if (err.message.startsWith(`--${flag} expects`)) return 'refused';
  assert.match(err.message, /^unknown flag --no-such-flag/, `${c.name} --${flag} ${value}`);
  return 'accepted';
}

const past = (b: Bound) => (b.integer ? b.max + 1 : b.max * (1 + 1e-6));

/** flag → its row in BOUNDS, for every command that lists the flag in its help. */
const FLAGS: [string, Bound][] = [
  ['gpus', BOUNDS.gpus],
  ['reclaim-rate', BOUNDS.reclaimRatePerHour],
  ['gpu-hours', BOUNDS.jobHours],
  ['hours', BOUNDS.jobHours],
  ['rate', BOUNDS.instanceYuanPerHour],
  ['no-gpu-rate', BOUNDS.noGpuYuanPerHour],
  ['storage-rate', BOUNDS.yuanPerGbDay],
];

describe('bounds equal across commands (one BOUNDS table)', () => {
  it('--gpus: 9 refused and 8 accepted by every command that takes it (quote, create, grab, the pricing guards, spot-check, run)', async () => {
    const withGpus = ALL.filter((c) => /^ {2}--gpus N /m.test(c.help({ env: EN, argv: [] })));
    assert.deepEqual(withGpus.map((c) => c.name).sort(), ['create', 'grab', 'idle-check', 'peak', 'quote', 'spot-check']);
    for (const c of withGpus) {
      assert.equal(await verdict(c, 'gpus', 9), 'refused', `${c.name} --gpus 9`);
      assert.equal(await verdict(c, 'gpus', 8), 'accepted', `${c.name} --gpus 8`);
    }
    // run's --gpus also takes `auto`: parsed on its own, the same limits.
    assert.throws(() => parseGpus('9'), UsageError);
    assert.equal(parseGpus('8'), 8);
    assert.equal(parseGpus('auto'), 'auto');
  });

  for (const [flag, b] of FLAGS) {
    it(`--${flag}: the largest value of BOUNDS accepted and the next refused by every command that takes it`, async () => {
      const takers = ALL.filter((c) => new RegExp(`^ {2}--${flag} `, 'm').test(c.help({ env: EN, argv: [] })));
      assert.ok(takers.length > 0, `no command takes --${flag}`);
      for (const c of takers) {
        assert.equal(await verdict(c, flag, b.max), 'accepted', `${c.name} --${flag} ${b.max}`);
        assert.equal(await verdict(c, flag, past(b)), 'refused', `${c.name} --${flag} ${past(b)}`);
      }
    });
  }
});
