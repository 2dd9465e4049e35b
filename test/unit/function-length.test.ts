// Issue 45 cut the longest functions of the sync engine, the pulls and pushes, the doctor's
// diagnose, the SSH handshake and the extension's activate() into named steps: none of them may grow back over 100 lines.
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { longFunctions } from '../../scripts/long-functions';

const LIMIT = 100;
const KEPT_SHORT = [join('src', 'remote', 'sync'), join('src', 'core', 'doctor.ts'), join('src', 'remote', 'handshake.ts'), join('src', 'extension', 'extension.ts')];

describe('function length (issue 45: named steps)', () => {
  it(`no function over ${LIMIT} lines in the sync engine, the doctor's diagnose, the SSH handshake or activate()`, () => {
    const long = longFunctions(KEPT_SHORT, LIMIT).map((f) => `${f.file}:${f.from} ${f.name} (${f.lines} lines)`);
    assert.deepEqual(long, [], `cut these into named steps (see src/app/launch): ${long.join(', ')}`);
  });

  it('finds a long function where there is one (the check is not blind)', () => {
    assert.ok(longFunctions([join('src', 'remote', 'sync')], 20).length > 0);
  });
});
