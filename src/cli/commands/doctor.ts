// `gpu-rent doctor --local [--json]`: nvidia-smi + the torch probe on this machine, then the
// verdict. Exit 0 only when the box is usable for its torch; a machine without a GPU exits 1.
import { forTerminal, forTerminalLines, jsonForTerminal } from '../../core/text';
import { formatHelp, parseArgs, UsageError } from '../args';
import { helpLang } from '../words';
import { cliLang, LANG_FLAG_SPEC } from '../lang';
import type { CliCommand } from '../command';
import { diagnoseOutputs } from '../../core/doctor';
import { describeDiagnosis, describeSmiFailure } from '../../core/doctor-text';
import { runLocal } from '../local-doctor';
import { diagnosisJson } from './diagnose';
import { smiJson, smiText } from './smi';

const specs = {
  local: { type: 'boolean', description: 'check this machine (run nvidia-smi and python here)', zh: '检查本机（在这里运行 nvidia-smi 和 python）' },
  python: { type: 'string', valueName: 'PATH', description: 'the Python to probe (default: python3)', zh: '要检测的 Python（默认：python3）' },
  json: { type: 'boolean', description: 'print nvidia-smi, probe and verdict as JSON', zh: '以 JSON 输出 nvidia-smi、检测结果和结论' },
  lang: LANG_FLAG_SPEC,
} as const;

const USAGE = 'gpu-rent doctor --local [--python PATH] [--json]';
const SUMMARY = 'Is this machine usable for its PyTorch? Runs nvidia-smi and a torch probe, prints the verdict and the fix.';

const SUMMARY_ZH = '这台机器能跑它的 PyTorch 吗？运行 nvidia-smi 和 torch 探测，打印结论和修复办法。';

export const command: CliCommand = {
  name: 'doctor',
  summary: 'Check this machine: nvidia-smi + torch probe → verdict and fix',
  summaryZh: '检查本机：nvidia-smi + torch 探测 → 结论和修复办法',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags } = parseArgs(argv, specs, { maxPositionals: 0 });
    if (!flags.local) throw new UsageError('needs --local (checks this machine; for a rented box, run it there)', '需要 --local（检查本机；要检查租用的机器，请在那台机器上运行）');
    const lang = cliLang(flags.lang, io.env);
    const zh = lang === 'zh-cn';
    const { smiOutput, probeOutput } = runLocal({ python: flags.python ?? 'python3', env: io.env });
    const { smi, probe: probeResult, diagnosis: d } = diagnoseOutputs(smiOutput, probeOutput);
    const probe = probeResult!;
    if (flags.json) {
      io.stdout(
        jsonForTerminal({ smi: smi.ok ? smiJson(smi.report) : { error: smi.error }, probe: probe.ok ? probe.probe : { error: probe.error }, diagnosis: diagnosisJson(d) }, 2) + '\n',
      );
    } else {
      if (smi.ok) io.stdout(smiText(smi.report, lang));
      else io.stdout(`${forTerminalLines(describeSmiFailure(smi.error, lang))}${zh ? '。' : '.'}\n`);
      if (probe.ok) {
        const p = probe.probe;
        const env = p.conda ? `conda env ${p.conda}` : p.venv ? `venv ${p.venv}` : zh ? '系统 Python' : 'system Python';
        io.stdout(
          forTerminalLines(
            zh
              ? `Python ${p.pythonVersion ?? '?'}（${p.python ?? '?'}，${env}）；torch ${p.torch ?? '未安装'}${p.torch ? `，CUDA 构建 ${p.torchCuda ?? '无'}，cuda.is_available() = ${String(p.cudaAvailable)}` : ''}`
              : `Python ${p.pythonVersion ?? '?'} (${p.python ?? '?'}, ${env}); torch ${p.torch ?? 'not installed'}${p.torch ? `, CUDA build ${p.torchCuda ?? 'none'}, cuda.is_available() = ${String(p.cudaAvailable)}` : ''}`,
          ) + '\n',
        );
      } else io.stdout(zh ? `Torch 探测失败（${probe.error.kind}）：${forTerminal(probe.error.message)}\n` : `Torch probe failed (${probe.error.kind}): ${forTerminal(probe.error.message)}\n`);
      io.stdout('\n' + forTerminalLines(describeDiagnosis(d, lang)));
    }
    return d.verdict === 'ok' ? 0 : 1;
  },
};
