// `gpu-rent probe TARGET [--json]`: one connection, one remote command: nvidia-smi, the torch
// probe, disks and conda env, then the doctor's verdict.
import { describeDiagnosis } from '../../core/doctor-text';
import { formatBytes, renderTable } from '../../core/format';
import { probeBox, type BoxProbe } from '../../remote/probe';
import { describeTarget } from '../../remote/target';
import { forTerminal, forTerminalLines, jsonForTerminal } from '../../core/text';
import { partialText } from './smi';
import { formatHelp, parseArgs } from '../args';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';

const specs = {
  json: { type: 'boolean', description: 'print the findings as JSON' },
  timeout: { type: 'number', valueName: 'SECONDS', min: 1, max: 3600, description: 'deadline for the checks on the box (default 90)' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent probe TARGET [--json] [--accept-new] [--identity FILE]';
const SUMMARY = `Check a rented box over SSH: GPU, driver, PyTorch and CUDA, disks, conda env, and the verdict with the fix. ${TARGET_HELP}`;

export function probeJson(p: BoxProbe, target: string): unknown {
  return {
    target,
    verdict: p.diagnosis.verdict,
    diagnosis: p.diagnosis,
    gpus: p.smi.ok ? p.smi.report.gpus.map((g) => ({ index: g.index, name: g.name, memoryTotalMiB: g.memoryTotalMiB, memoryUsedMiB: g.memoryUsedMiB, utilizationGpuPct: g.utilizationGpuPct, computeCapability: g.computeCapability })) : [],
    smiError: p.smi.ok ? null : p.smi.error,
    torch: p.torch.ok ? p.torch.probe : null,
    torchError: p.torch.ok ? null : p.torch.error,
    condaEnv: p.condaEnv,
    dataDir: p.dataDir,
    home: p.home,
    disks: p.disks,
    seconds: Math.round(p.seconds * 1000) / 1000,
  };
}

export function probeText(p: BoxProbe, target: string): string {
  const lines = [`${forTerminal(target)}: checked in ${p.seconds.toFixed(1)} s`, '', forTerminalLines(describeDiagnosis(p.diagnosis, 'en').trimEnd()), ''];
  if (p.disks.length) {
    lines.push('Disks:');
    const rows = p.disks.map((d) => [`  ${d.role}`, forTerminal(d.path), `${formatBytes(d.usedBytes)} used of ${formatBytes(d.sizeBytes)}`, `${formatBytes(d.availableBytes)} free`, `(${forTerminal(d.mountedOn)})`]);
    lines.push(renderTable(rows).trimEnd());
  }
  lines.push(`Conda env: ${p.condaEnv === null ? 'none active in a login shell' : forTerminal(p.condaEnv)}`);
  const where = p.dataDir.source === 'platform' ? ` (${p.dataDir.platform ?? 'platform'} data disk)` : p.dataDir.source === 'env' ? ' (GPU_RENT_DATA_DIR)' : ' (home: no platform data disk found)';
  if (p.smi.ok && p.smi.report.partial) lines.push(`nvidia-smi: ${forTerminal(partialText(p.smi.report.partial))}`);
  lines.push(`Data folder for jobs and checkpoints: ${forTerminal(p.dataDir.path)}${where}`);
  return lines.join('\n') + '\n';
}

export const command: CliCommand = {
  name: 'probe',
  summary: 'Check a rented box over SSH: GPU, driver, PyTorch/CUDA verdict, disks, conda env.',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    return withRemote(positionals[0], flags, io, async (conn, target) => {
      const p = await probeBox(conn, { timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000 });
      const label = describeTarget({ ...target, user: conn.user });
      io.stdout(flags.json ? jsonForTerminal(probeJson(p, label), 2) + '\n' : probeText(p, label));
      return p.diagnosis.verdict === 'ok' ? 0 : 1;
    });
  },
};
