// The box's batch hashes through a real sh, as sshd hands a command to the login shell
// (`sh -c COMMAND`): batches of up to 2500 files, every command under Linux's 128 KiB limit
// for one argument even when every name is full of quotes, every answer the file's SHA-256.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashBatcher } from '../../src/remote/sync/hash-batch';
import type { SyncRemote } from '../../src/remote/sync/types';

const MAX_ARG_STRLEN = 128 * 1024;

describe('sync hash batches (real sh)', function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'sync-hash-batch-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const shRemote = (commands: string[]): SyncRemote =>
    ({
      exec: (command: string) =>
        new Promise((resolve, reject) => {
          commands.push(command);
          execFile('sh', ['-c', command], { maxBuffer: 1 << 26 }, (err, stdout, stderr) => (err && typeof (err as { code?: unknown }).code !== 'number' ? reject(err) : resolve({ code: err ? Number((err as { code?: unknown }).code) : 0, stdout, stderr })));
        }),
    }) as unknown as SyncRemote;

  async function hashAll(names: string[]): Promise<{ commands: string[]; ok: number }> {
    const want: string[] = [];
    const paths = names.map((n, i) => {
      const p = join(root, n);
      const body = `file ${i}`;
      writeFileSync(p, body);
      want.push(createHash('sha256').update(body).digest('hex'));
      return p;
    });
    const commands: string[] = [];
    const batcher = new HashBatcher(shRemote(commands));
    const answers = await Promise.all(paths.map((p) => batcher.full(p, 7)));
    let ok = 0;
    answers.forEach((a, i) => {
      assert.equal(a.full, want[i], `file ${i}`);
      ok++;
    });
    return { commands, ok };
  }

  it('5000 plain names: at most 3 batches (the bytes of the names decide; 1000 a batch was 5), each answer the file\'s SHA-256', async () => {
    mkdirSync(join(root, 'step-00'));
    const { commands, ok } = await hashAll(Array.from({ length: 5000 }, (_, i) => `step-00/shard-${i}.bin`));
    assert.equal(ok, 5000);
    assert.ok(commands.length <= 3, `${commands.length} commands`);
    for (const c of commands) assert.ok(Buffer.byteLength(c) < MAX_ARG_STRLEN, `${Buffer.byteLength(c)} bytes`);
  });

  it("3000 names full of quotes: more, smaller batches, every command under 128 KiB, every answer right", async () => {
    const { commands, ok } = await hashAll(Array.from({ length: 3000 }, (_, i) => `it's ''' a 'quoted' name ''''' ${i} ''.bin`));
    assert.equal(ok, 3000);
    assert.ok(commands.length > 2, `${commands.length} commands`);
    for (const c of commands) assert.ok(Buffer.byteLength(c) < MAX_ARG_STRLEN, `${Buffer.byteLength(c)} bytes`);
  });
});
