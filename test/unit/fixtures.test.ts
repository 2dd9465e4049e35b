// The fixtures the tests read are in the repository (test/fixtures/shared), copied byte for
// byte: every file is the one its README's manifest names (size and SHA-256), none is missing
// or extra, and when ../shared/fixtures happens to sit beside the checkout the two hold the
// same files with the same bytes. Nothing requires ../shared.
import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { COMPAT_DIR, FIXTURES_DIR, NVIDIA_SMI_DIR, fixturesDir, upstreamFixturesDir } from '../support/fixtures';

const SUBDIRS = ['compat', 'nvidia-smi'];

interface ManifestRow { bytes: number; sha256: string }

function manifest(): Map<string, ManifestRow> {
  const rows = new Map<string, ManifestRow>();
  for (const line of readFileSync(join(FIXTURES_DIR, 'README.md'), 'utf8').split('\n')) {
    const m = /^\| `([^`]+)` \| (\d+) \| ([0-9a-f]{64}) \|$/.exec(line);
    if (m) rows.set(m[1]!, { bytes: Number(m[2]), sha256: m[3]! });
  }
  return rows;
}

/** compat/… and nvidia-smi/… under root, sorted. */
function filesIn(root: string): string[] {
  return SUBDIRS.flatMap((d) => readdirSync(join(root, d)).map((f) => `${d}/${f}`)).sort();
}

const sha256 = (buf: Buffer): string => createHash('sha256').update(buf).digest('hex');

describe('in-repo fixtures (test/fixtures/shared)', () => {
  it('the helper points inside the checkout, at compat/ and nvidia-smi/', () => {
    assert.equal(fixturesDir(), FIXTURES_DIR);
    assert.equal(COMPAT_DIR, join(FIXTURES_DIR, 'compat'));
    assert.equal(NVIDIA_SMI_DIR, join(FIXTURES_DIR, 'nvidia-smi'));
    assert.ok(FIXTURES_DIR.endsWith(join('test', 'fixtures', 'shared')), FIXTURES_DIR);
  });

  it('holds exactly the files of its manifest, each with the listed size and SHA-256, and their SOURCES file', () => {
    const listed = manifest();
    assert.ok(listed.size >= 20, `the README manifest lists only ${listed.size} files`);
    assert.ok(listed.has('nvidia-smi/SOURCES.md'), 'the manifest must keep nvidia-smi/SOURCES.md');
    assert.deepEqual(filesIn(FIXTURES_DIR), [...listed.keys()].sort(), 'files on disk and in the manifest differ');
    for (const [rel, row] of listed) {
      const buf = readFileSync(join(FIXTURES_DIR, rel));
      assert.equal(buf.length, row.bytes, `${rel}: size`);
      assert.equal(sha256(buf), row.sha256, `${rel}: SHA-256 (the copy must stay byte-for-byte)`);
    }
  });

  it('is byte-identical to ../shared/fixtures when that folder sits beside the checkout (otherwise the manifest is the reference)', () => {
    const upstream = upstreamFixturesDir();
    const ours = filesIn(FIXTURES_DIR);
    if (upstream === undefined) {
      // No original here (a plain clone): the copy must still be complete against its manifest.
      assert.deepEqual(ours, [...manifest().keys()].sort());
      return;
    }
    assert.deepEqual(ours, filesIn(upstream), `the files of ${upstream} and of the in-repo copy differ: copy them again with cp -p`);
    for (const rel of ours) {
      assert.ok(statSync(join(upstream, rel)).isFile(), `${upstream}/${rel} is not a file`);
      assert.ok(readFileSync(join(FIXTURES_DIR, rel)).equals(readFileSync(join(upstream, rel))), `${rel} differs from ${upstream}/${rel}`);
    }
  });
});
