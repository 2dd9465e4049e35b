// Issue 41 friction: the GPU report recommended a cu128 wheel on a CUDA 12.2 driver without
// saying why that is fine. NVIDIA's minor-version compatibility (test/fixtures/shared/compat/
// cuda-driver-table.md §1: any 12.x build on a driver >= 525.60.13) makes it so: the report says it.
import { strict as assert } from 'node:assert';
import { diagnose, type DiagnoseInput } from '../../src/core/doctor';
import { describeDiagnosis } from '../../src/core/doctor-text';

const box = (driverVersion: string): DiagnoseInput => ({ driverVersion, gpuName: 'NVIDIA GeForce RTX 4090', torchVersion: '2.7.1+cpu' });

describe('GPU report: a wheel newer than the driver’s CUDA (issue 41 friction)', () => {
  it('cu128 on a 535 driver (CUDA 12.2): recommended, and minor-version compatibility is said with the family minimum', () => {
    const d = diagnose(box('535.54.03'));
    assert.match(d.fix.pip ?? '', /whl\/cu128$/);
    assert.ok(d.reasons.some((r) => r.code === 'minor-version-compat' && r.torchCuda === '12.8' && r.familyMinDriver === '525.60.13'));
    assert.match(describeDiagnosis(d, 'en'), /A CUDA 12\.8 build runs on a CUDA 12\.2 driver \(minor-version compatibility: driver ≥ 525\.60\.13\)/);
    assert.match(describeDiagnosis(d, 'zh-cn'), /小版本兼容，驱动 ≥ 525\.60\.13/);
  });
  it('a driver that is new enough (570, CUDA 12.8): no such line; one below the 12.x family minimum (520): no cu12x wheel at all', () => {
    assert.ok(!diagnose(box('570.124.06')).reasons.some((r) => r.code === 'minor-version-compat'));
    const old = diagnose(box('520.61.05'));
    assert.doesNotMatch(old.fix.pip ?? '', /cu12\d/);
    assert.ok(!old.reasons.some((r) => r.code === 'minor-version-compat'));
  });
});
