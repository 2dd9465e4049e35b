// `gpu-rent probe TARGET [--json]`: one connection, one remote command: nvidia-smi, the torch
// probe, disks and conda env, then the doctor's verdict.
import { describeDiagnosis } from '../../core/doctor-text';
import { formatBytes, renderTable } from '../../core/format';
import { probeBox, type BoxProbe } from '../../remote/probe';
import { describeTarget } from '../../remote/target';
import { forTerminal, forTerminalLines } from '../../core/text';
import { partialText } from './smi';
import { defineCommand } from '../define';
import type { CliCommand } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../remote-common';
import type { CliLang } from '../lang';
import { t } from '../words';
import { verdictError } from './diagnose';

const specs = {
  json: { type: 'boolean', description: 'print the findings as JSON (exit 1 adds error {code: "not-usable", message} beside them)', zh: '以 JSON 输出检查结果（退出码为 1 时旁边多一个 error {code: "not-usable", message}）' },
  workspace: { type: 'boolean', description: "also check the box as a workspace: glibc for VS Code's Remote-SSH (>= 2.28), conda on PATH without a login shell, and which of Hugging Face, hf-mirror, ModelScope, the pip index and a Chinese pip mirror answer from the box (4 s each, all at once), AutoDL's /etc/network_turbo; says what to use", zh: '同时把机器当作工作区检查：Remote-SSH 需要的 glibc（>= 2.28）、非登录 shell 的 PATH 上有没有 conda，以及从机器上能否访问 Hugging Face、hf-mirror、ModelScope、pip 官方源和国内 pip 镜像（各 4 秒，同时进行）、AutoDL 的 /etc/network_turbo；并说明该用哪个' },
  timeout: { type: 'number', valueName: 'SECONDS', min: 1, max: 3600, description: 'deadline for the checks on the box (default 90)', zh: '在机器上检查的时限（默认 90 秒）' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent probe TARGET [--workspace] [--json] [--accept-new] [--identity FILE]';
const SUMMARY = `Check a rented box over SSH: GPU, driver, PyTorch and CUDA, disks, conda env, and the verdict with the fix. ${TARGET_HELP}`;
const SUMMARY_ZH = `通过 SSH 检查租到的机器：GPU、驱动、PyTorch 与 CUDA、磁盘、conda 环境，以及结论和修复办法。${TARGET_HELP_ZH}`;

/** GPU_RENT_TEST_ENDPOINTS (tests): JSON of endpoint id → URL replacing the public ones, http(s) URLs only. */
export function testEndpoints(env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  if (!env.GPU_RENT_TEST_ENDPOINTS) return undefined;
  const v = JSON.parse(env.GPU_RENT_TEST_ENDPOINTS) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string' && /^https?:\/\/[A-Za-z0-9.:/_-]{1,200}$/.test(e[1])));
}

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

export function probeText(p: BoxProbe, target: string, lang: CliLang = 'en'): string {
  const lines = [t(lang, '{0}: checked in {1} s', '{0}：检查用时 {1} 秒', forTerminal(target), p.seconds.toFixed(1)), '', forTerminalLines(describeDiagnosis(p.diagnosis, lang).trimEnd()), ''];
  if (p.disks.length) {
    lines.push(t(lang, 'Disks:', '磁盘：'));
    const role = (r: string) => (lang === 'zh-cn' ? ({ system: '系统盘', data: '数据盘', home: '主目录', tmp: '临时' } as Record<string, string>)[r] ?? r : r);
    const rows = p.disks.map((d) => [`  ${role(d.role)}`, forTerminal(d.path), t(lang, '{0} used of {1}', '已用 {0} / 共 {1}', formatBytes(d.usedBytes), formatBytes(d.sizeBytes)), t(lang, '{0} free', '可用 {0}', formatBytes(d.availableBytes)), `(${forTerminal(d.mountedOn)})`]);
    lines.push(renderTable(rows).trimEnd());
  }
  lines.push(t(lang, 'Conda env: {0}', 'Conda 环境：{0}', p.condaEnv === null ? t(lang, 'none active in a login shell', '登录 shell 中没有激活的环境') : forTerminal(p.condaEnv)));
  const where = p.dataDir.source === 'platform' ? t(lang, ' ({0} data disk)', '（{0} 数据盘）', p.dataDir.platform ?? t(lang, 'platform', '平台')) : p.dataDir.source === 'env' ? t(lang, ' (GPU_RENT_DATA_DIR)', '（GPU_RENT_DATA_DIR）') : t(lang, ' (home: no platform data disk found)', '（主目录：没找到平台数据盘）');
  if (p.smi.ok && p.smi.report.partial) lines.push(`nvidia-smi: ${forTerminal(partialText(p.smi.report.partial, lang))}`);
  lines.push(t(lang, 'Data folder for jobs and checkpoints: {0}{1}', '任务和检查点的数据目录：{0}{1}', forTerminal(p.dataDir.path), where));
  return lines.join('\n') + '\n';
}

type Probed = { p: BoxProbe; label: string; ws?: Awaited<ReturnType<typeof import('../../remote/workspaceProbe').probeWorkspace>>; wsText: string };

export const command: CliCommand = defineCommand({
  name: 'probe',
  summary: 'Check a rented box over SSH: GPU, driver, PyTorch/CUDA verdict, disks, conda env.',
  summaryZh: '通过 SSH 检查租到的机器：GPU、驱动、PyTorch/CUDA 结论、磁盘、conda 环境。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 1, names: 'TARGET' },
  run: async (flags, { io, lang, json, positionals }): Promise<Probed> =>
    withRemote(positionals[0], flags, io, async (conn, target) => {
      const p = await probeBox(conn, { timeoutMs: flags.timeout === undefined ? undefined : flags.timeout * 1000 });
      const label = describeTarget({ ...target, user: conn.user });
      const ws = flags.workspace ? await (await import('../../remote/workspaceProbe')).probeWorkspace(conn, { endpoints: testEndpoints(io.env) }) : undefined;
      return { p, label, ...(ws ? { ws } : {}), wsText: ws && !json ? (await import('./probe-workspace')).workspaceText(ws, lang) : '' };
    }),
  // The box's verdict: 1 when it is not usable for its torch, in both formats (the findings are the report, with `error` beside them under --json).
  json: ({ p, label, ws }) => {
    const error = verdictError(p.diagnosis, 'not-usable');
    return { ...(probeJson(p, label) as object), ...(ws ? { workspace: ws } : {}), ...(error ? { error } : {}) };
  },
  text: ({ p, label, wsText }, lang) => probeText(p, label, lang) + wsText,
  exit: ({ p }) => (p.diagnosis.verdict === 'ok' ? 0 : 1),
});
