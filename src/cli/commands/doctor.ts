// `gpu-rent doctor --local [--json]`: nvidia-smi + the torch probe on this machine, then the
// verdict. Exit 0 only when the box is usable for its torch; a machine without a GPU exits 1.
import { forTerminal, forTerminalLines } from '../../core/text';
import { UsageError } from '../args';
import { LANG_FLAG_SPEC, type CliLang } from '../lang';
import { defineCommand } from '../define';
import type { CliCommand } from '../command';
import { diagnoseOutputs } from '../../core/doctor';
import { describeDiagnosis, describeSmiFailure } from '../../core/doctor-text';
import { runLocal } from '../local-doctor';
import { diagnosisJson, verdictError } from './diagnose';
import { smiJson, smiText } from './smi';

const specs = {
  local: { type: 'boolean', description: 'check this machine (run nvidia-smi and python here)', zh: '检查本机（在这里运行 nvidia-smi 和 python）' },
  python: { type: 'string', valueName: 'PATH', description: 'the Python to probe (default: python3)', zh: '要检测的 Python（默认：python3）' },
  json: { type: 'boolean', description: 'print nvidia-smi, probe and verdict as JSON (exit 1 adds error {code: "not-usable", message} beside them)', zh: '以 JSON 输出 nvidia-smi、检测结果和结论（退出码为 1 时旁边多一个 error {code: "not-usable", message}）' },
  lang: LANG_FLAG_SPEC,
} as const;

const USAGE = 'gpu-rent doctor --local [--python PATH] [--json]';
const SUMMARY = 'Is this machine usable for its PyTorch? Runs nvidia-smi and a torch probe, prints the verdict and the fix.';

const SUMMARY_ZH = '这台机器能跑它的 PyTorch 吗？运行 nvidia-smi 和 torch 探测，打印结论和修复办法。';

type Checked = ReturnType<typeof diagnoseOutputs>;

function doctorText({ smi, probe: probeResult, diagnosis: d }: Checked, lang: CliLang): string {
  const zh = lang === 'zh-cn';
  const probe = probeResult!;
  let out = smi.ok ? smiText(smi.report, lang) : `${forTerminalLines(describeSmiFailure(smi.error, lang))}${zh ? '。' : '.'}\n`;
  if (probe.ok) {
    const p = probe.probe;
    const env = p.conda ? `conda env ${p.conda}` : p.venv ? `venv ${p.venv}` : zh ? '系统 Python' : 'system Python';
    out +=
      forTerminalLines(
        zh
          ? `Python ${p.pythonVersion ?? '?'}（${p.python ?? '?'}，${env}）；torch ${p.torch ?? '未安装'}${p.torch ? `，CUDA 构建 ${p.torchCuda ?? '无'}，cuda.is_available() = ${String(p.cudaAvailable)}` : ''}`
          : `Python ${p.pythonVersion ?? '?'} (${p.python ?? '?'}, ${env}); torch ${p.torch ?? 'not installed'}${p.torch ? `, CUDA build ${p.torchCuda ?? 'none'}, cuda.is_available() = ${String(p.cudaAvailable)}` : ''}`,
      ) + '\n';
  } else out += zh ? `Torch 探测失败（${probe.error.kind}）：${forTerminal(probe.error.message)}\n` : `Torch probe failed (${probe.error.kind}): ${forTerminal(probe.error.message)}\n`;
  return out + '\n' + forTerminalLines(describeDiagnosis(d, lang));
}

export const command: CliCommand = defineCommand({
  name: 'doctor',
  summary: 'Check this machine: nvidia-smi + torch probe → verdict and fix',
  summaryZh: '检查本机：nvidia-smi + torch 探测 → 结论和修复办法',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 0 },
  run: async (flags, { io }): Promise<Checked> => {
    if (!flags.local) throw new UsageError('needs --local (checks this machine; for a rented box, run it there)', '需要 --local（检查本机；要检查租用的机器，请在那台机器上运行）');
    const { smiOutput, probeOutput } = runLocal({ python: flags.python ?? 'python3', env: io.env });
    return diagnoseOutputs(smiOutput, probeOutput);
  },
  // A box not usable for its torch (no GPU here) exits 1 in both formats; the verdict is the report on stdout, with `error` beside it under --json.
  json: ({ smi, probe, diagnosis }) => {
    const error = verdictError(diagnosis, 'not-usable');
    return { smi: smi.ok ? smiJson(smi.report) : { error: smi.error }, probe: probe!.ok ? probe!.probe : { error: probe!.error }, diagnosis: diagnosisJson(diagnosis), ...(error ? { error } : {}) };
  },
  text: doctorText,
  exit: ({ diagnosis }) => (diagnosis.verdict === 'ok' ? 0 : 1),
});
