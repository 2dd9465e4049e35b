// The workspace verdicts (issue 44 deliver 2 and 3): glibc read from real getconf / ldd captures
// (test/fixtures/workspace/SOURCES.md) against Remote-SSH's 2.28, and the download advice from
// which endpoints answered.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENDPOINTS, glibcVerdict, networkAdvice, parseGlibcVersion, type EndpointId, type EndpointReach } from '../../src/core/workspace';
import { parseReach } from '../../src/remote/workspaceProbe';

const fx = (name: string) => readFileSync(join(__dirname, '..', 'fixtures', 'workspace', name), 'utf8');

const reach = (answers: Partial<Record<EndpointId, [number | null, number | null]>>): EndpointReach[] =>
  (Object.keys(ENDPOINTS) as EndpointId[]).map((id) => ({ id, url: ENDPOINTS[id], status: answers[id]?.[0] ?? null, seconds: answers[id]?.[1] ?? null }));

describe('workspace probe verdicts', () => {
  it('reads glibc from getconf, else from the first line of ldd --version (real Debian 12 captures)', () => {
    assert.equal(parseGlibcVersion(fx('debian12-getconf.txt'), ''), '2.36');
    assert.equal(parseGlibcVersion('', fx('debian12-ldd-version.txt')), '2.36');
    assert.equal(parseGlibcVersion('', ''), null);
    // Not glibc at all (what a musl box's ldd prints first is no GNU libc line): unknown, never guessed.
    assert.equal(parseGlibcVersion('', 'ldd: unrecognized option'), null);
  });

  it("Remote-SSH's line is glibc 2.28", () => {
    assert.deepEqual(glibcVerdict('2.27'), { code: 'too-old', version: '2.27', min: '2.28' });
    assert.deepEqual(glibcVerdict('2.17'), { code: 'too-old', version: '2.17', min: '2.28' });
    assert.deepEqual(glibcVerdict('2.28'), { code: 'ok', version: '2.28' });
    assert.deepEqual(glibcVerdict('2.36'), { code: 'ok', version: '2.36' });
    assert.deepEqual(glibcVerdict('3.1'), { code: 'ok', version: '3.1' });
    assert.deepEqual(glibcVerdict(null), { code: 'unknown' });
  });

  it('advice: Hugging Face directly when it answers, hf-mirror when only it does (or far faster), ModelScope last; the pip mirror when the index does not answer', () => {
    assert.deepEqual(networkAdvice(reach({ hf: [200, 0.4], hfMirror: [200, 0.3], pip: [200, 0.2], pipMirror: [200, 0.1] }), false), { hfEndpoint: null, models: 'hf', pipIndex: null, pipReachable: true, turbo: false });
    const cn = networkAdvice(reach({ hfMirror: [200, 0.3], modelscope: [200, 0.2], pipMirror: [200, 0.1] }), true);
    assert.deepEqual(cn, { hfEndpoint: 'https://hf-mirror.com', models: 'hf-mirror', pipIndex: ENDPOINTS.pipMirror, pipReachable: true, turbo: true });
    assert.equal(networkAdvice(reach({ hf: [200, 3.9], hfMirror: [200, 0.2] }), false).models, 'hf-mirror');
    assert.equal(networkAdvice(reach({ modelscope: [200, 0.5] }), false).models, 'modelscope');
    // A server error is not an answer to download from.
    const none = networkAdvice(reach({ hf: [502, 0.1] }), false);
    assert.equal(none.models, 'none');
    assert.equal(none.pipReachable, false);
  });

  it("reads the box's reach lines strictly: curl's 000 is no answer, odd lines are ignored", () => {
    const r = parseReach('hf\t000 4.001\nhfMirror\t200 0.312\npip\t<script>\nmodelscope\t301 0.2\n', ENDPOINTS);
    assert.deepEqual(
      r.map((x) => [x.id, x.status, x.seconds]),
      [
        ['hf', null, null],
        ['hfMirror', 200, 0.312],
        ['modelscope', 301, 0.2],
        ['pip', null, null],
        ['pipMirror', null, null],
      ],
    );
  });
});
