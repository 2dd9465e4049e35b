// `gpu-rent push TARGET --local DIR --remote DIR [--force] [--allow-secrets] [--allow-unscanned] [--json]`: upload
// new and changed files to the rented box, each verified there before it appears.
import { formatBytes } from '../../core/format';
import { forTerminal } from '../../core/text';
import { jsonError } from '../json-error';
import { SCAN_MAX_BYTES } from '../../core/guards/secrets';
import { preparePush, pushFolder, type PushProgress, type PushReport, type PushSkipReason } from '../../app/push';
import { syncRemote } from '../../app/sync';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand, CliIO } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../remote-common';
import { cliLang, type CliLang } from '../lang';
import { onInterrupt } from '../interrupt';
import { helpLang, t } from '../words';

const specs = {
  local: { type: 'string', valueName: 'DIR', description: 'folder on this computer to upload', zh: '要上传的本机目录' },
  remote: { type: 'string', valueName: 'DIR', description: 'folder on the box to upload into (created if missing)', zh: '上传到机器上的目录（不存在则创建）' },
  force: { type: 'boolean', description: 'also overwrite files on the box that are newer than the local ones', zh: '机器上比本地更新的文件也覆盖' },
  'allow-secrets': { type: 'boolean', description: 'upload even when the secret scan finds likely keys or tokens', zh: '即使密钥扫描发现疑似密钥或令牌也上传' },
  'allow-unscanned': { type: 'boolean', description: `upload even when the secret scan stopped at its limit and did not read every file`, zh: '即使密钥扫描到达上限、没有读完所有文件也上传' },
  'scan-limit-mb': { type: 'number', valueName: 'MIB', min: 1, max: 1024 * 1024, integer: true, description: `file content the secret scan reads before it stops (default ${SCAN_MAX_BYTES / 1024 ** 2})`, zh: `密钥扫描停止前读取的文件内容量（默认 ${SCAN_MAX_BYTES / 1024 ** 2}）` },
  json: { type: 'boolean', description: 'print { files, bytes, skipped, seconds, ... } as JSON', zh: '以 JSON 输出 { files, bytes, skipped, seconds, ... }' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent push TARGET --local DIR --remote DIR [--force] [--allow-secrets] [--allow-unscanned] [--json]';
const SUMMARY = [
  'Upload new and changed files (datasets, code, weights) to a folder on the rented box. The',
  'local folder is scanned for likely secrets first (the box’s data disk is not encrypted): a',
  'finding stops the push unless --allow-secrets. The scan checks exactly the files push sends',
  '(a --local given as a link is the folder it points to, for both); a scan that stopped at its',
  'limit (--scan-limit-mb) stops the push unless --allow-unscanned. Each file is written on the box as NAME.part,',
  'checked there (size and SHA-256 against what was read here), and only then renamed into place',
  'with the local modification time; an interrupted push resumes from its .part. Files already',
  'on the box with the same size and time are skipped; a file on the box newer than the local',
  'one is never overwritten without --force. Links and names unsafe on the box are listed, not sent.',
  '',
  TARGET_HELP,
  '',
  'Example:',
  '  gpu-rent push mybox --local ./data --remote /root/autodl-tmp/data',
].join('\n');

const SUMMARY_ZH = [
  '把新增和改动的文件（数据集、代码、权重）上传到租到的机器上的目录。先扫描本地目录中的疑似',
  '密钥（机器的数据盘没有加密）：发现后停止上传，除非加 --allow-secrets。扫描的正是 push 要发送的',
  '文件（--local 是链接时，两者都用它指向的目录）；扫描到达上限（--scan-limit-mb）而停止时也停止上传，',
  '除非加 --allow-unscanned。每个文件在机器上先写成 NAME.part，在那里核对（大小和 SHA-256 与本地读到的',
  '一致）后才带着本地修改时间改名到位；中断的上传从 .part 续传。机器上大小和时间都相同的文件跳过；',
  '机器上比本地新的文件，不加 --force 永不覆盖。链接和在机器上不安全的文件名只列出，不发送。',
  '',
  TARGET_HELP_ZH,
  '',
  '示例：',
  '  gpu-rent push mybox --local ./data --remote /root/autodl-tmp/data',
].join('\n');

const REASON_ZH: Partial<Record<PushSkipReason, string>> = {
  'remote-newer': '机器上的文件更新（用 --force 覆盖）',
  'local-changed': '上传过程中在本地有改动（下次再传）',
  'remote-conflict': '机器上有目录或链接挡在那里',
  'remote-unwritable': '在机器上无法写入',
  'local-link': '链接（不跟随）',
  excluded: '已排除（被密钥扫描标记）',
  'verify-failed': '机器上的 SHA-256 两次都不符',
  'control-char': '文件名含有控制字符',
  backslash: '文件名含有反斜杠',
  'reserved-name': '文件名是 sync 自用的保留名',
  'special-file': '不是普通文件',
};

const REASON_TEXT: Partial<Record<PushSkipReason, string>> = {
  'remote-newer': 'the file on the box is newer (use --force to overwrite)',
  'local-changed': 'changed here during the upload (next push)',
  'remote-conflict': 'a folder or link on the box is in the way',
  'remote-unwritable': 'cannot be written on the box',
  'local-link': 'a link (not followed)',
  excluded: 'left out (flagged by the secret scan)',
  'verify-failed': 'SHA-256 on the box did not match twice',
  'control-char': 'name contains control characters',
  backslash: 'name contains a backslash',
  'reserved-name': "name is reserved for sync's own files",
  'special-file': 'not a regular file',
};

const printable = (name: string) => (/[\x00-\x1f\x7f-\x9f]/.test(name) ? JSON.stringify(name) : name);

/** "the secret scan stopped at its 512 MiB limit of file content after 1200 files: 30 files were not checked" */
function cutText(scan: { truncated: { reason: 'maxFiles' | 'maxBytes'; filesSeen: number; limit: number } | null; unscanned: number }, lang: CliLang = 'en'): string {
  const cut = scan.truncated!;
  const mib = cut.limit % (1024 * 1024) === 0 ? `${cut.limit / 1024 / 1024} MiB` : formatBytes(cut.limit);
  if (lang === 'zh-cn') return `密钥扫描在读了 ${cut.filesSeen} 个文件后到达上限（${cut.reason === 'maxBytes' ? `文件内容 ${mib}` : `${cut.limit} 个文件`}）而停止：${scan.unscanned} 个文件没有检查`;
  const limit = cut.reason === 'maxBytes' ? `${mib} limit of file content` : `${cut.limit}-file limit`;
  return `the secret scan stopped at its ${limit} after ${cut.filesSeen} file${cut.filesSeen === 1 ? '' : 's'}: ${scan.unscanned} file${scan.unscanned === 1 ? ' was' : 's were'} not checked`;
}

export function pushReportJson(r: PushReport): Record<string, unknown> {
  return { files: r.files, bytes: r.bytes, pushed: r.pushed, unchanged: r.unchanged, skipped: r.skipped, seconds: r.seconds, interrupted: r.interrupted, ...(r.compression ? { compression: r.compression } : {}) };
}

function reportText(r: PushReport, lang: CliLang = 'en'): string {
  if (lang === 'zh-cn') {
    const zh = r.skipped.map((s) => `已跳过 ${printable(s.name)}：${REASON_ZH[s.reason] ?? s.reason}`);
    const rateZh = r.seconds > 0 && r.bytes > 0 ? `（${formatBytes(r.bytes / r.seconds)}/s）` : '';
    const extraZh = [r.unchanged ? `${r.unchanged} 个未变` : '', r.skipped.length ? `${r.skipped.length} 个已跳过` : ''].filter(Boolean).join('，');
    zh.push(`${r.interrupted ? '已中断：' : ''}上传了 ${r.files} 个文件，${formatBytes(r.bytes)}，用时 ${r.seconds.toFixed(1)} 秒${rateZh}${extraZh ? `；${extraZh}` : ''}`);
    return zh.join('\n') + '\n';
  }
  const lines = r.skipped.map((s) => `skipped ${printable(s.name)}: ${REASON_TEXT[s.reason] ?? s.reason}`);
  const rate = r.seconds > 0 && r.bytes > 0 ? ` (${formatBytes(r.bytes / r.seconds)}/s)` : '';
  const extra = [r.unchanged ? `${r.unchanged} unchanged` : '', r.skipped.length ? `${r.skipped.length} skipped` : ''].filter(Boolean).join(', ');
  lines.push(`${r.interrupted ? 'interrupted: ' : ''}pushed ${r.files} file${r.files === 1 ? '' : 's'}, ${formatBytes(r.bytes)} in ${r.seconds.toFixed(1)} s${rate}${extra ? `; ${extra}` : ''}`);
  return lines.join('\n') + '\n';
}

function progressPrinter(io: CliIO, json: boolean, lang: CliLang): (p: PushProgress) => void {
  const live = !json && Boolean(process.stderr.isTTY);
  let lastDraw = 0;
  return (p) => {
    if (json) return;
    if (live && p.kind === 'bytes' && p.size > 0 && Date.now() - lastDraw > 500) {
      lastDraw = Date.now();
      io.stderr(`\r\x1b[K${printable(p.name)}  ${Math.floor((p.done / p.size) * 100)}%  ${t(lang, '{0} of {1}', '{0} / {1}', formatBytes(p.done), formatBytes(p.size))}`);
    } else if (p.kind === 'file-done')
      io.stdout(
        `${live ? '\r\x1b[K' : ''}${lang === 'zh-cn' ? `已上传 ${printable(p.name)}（${formatBytes(p.size)}${p.bytes < p.size ? `，续传：发送了 ${formatBytes(p.bytes)}` : ''}）` : `pushed ${printable(p.name)} (${formatBytes(p.size)}${p.bytes < p.size ? `, resumed: ${formatBytes(p.bytes)} sent` : ''})`}\n`,
      );
  };
}

export const command: CliCommand = {
  name: 'push',
  summary: 'Upload a folder to a rented box: secret scan first, verified, resumable, only new files.',
  summaryZh: '把目录上传到租到的机器：先扫描密钥，逐个校验，可续传，只传新文件。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    const lang = cliLang(flags.lang, io.env);
    if (!flags.local) throw new UsageError('missing --local DIR (the folder on this computer to upload)', '缺少 --local DIR（要上传的本机目录）');
    if (!flags.remote) throw new UsageError('missing --remote DIR (the folder on the box to upload into)', '缺少 --remote DIR（上传到机器上的目录）');
    const json = flags.json === true;
    const ac = onInterrupt({
      secondExits: true,
      sigterm: true,
      onFirst: () => io.stderr(t(lang, 'stopping: unfinished files stay as .part on the box and resume next time (Ctrl-C again to quit now)\n', '正在停止：没传完的文件在机器上保留为 .part，下次续传（再按一次 Ctrl-C 立即退出）\n')),
    });
    try {
      const req = {
        localDir: flags.local!,
        remoteDir: flags.remote!,
        force: flags.force === true,
        // What the transfer decided (no gzip on the box, a stream refused): one stderr line each.
        log: (line: string) => io.stderr(`gpu-rent push: ${forTerminal(line)}\n`),
        allowSecrets: flags['allow-secrets'] === true,
        allowUnscanned: flags['allow-unscanned'] === true,
        ...(flags['scan-limit-mb'] !== undefined ? { scanLimits: { maxBytes: flags['scan-limit-mb'] * 1024 * 1024 } } : {}),
        signal: ac.signal,
      };
      // The local list and its secret scan run while the login is made; nothing leaves before
      // both are done. Its failure (a missing folder) is reported once connected, as before.
      const prepared = preparePush(req);
      prepared.catch(() => undefined);
      return await withRemote(positionals[0], flags, io, async (conn) => {
        const r = await pushFolder(syncRemote(conn), req, progressPrinter(io, json, lang), prepared);
        if (r.kind === 'secrets-found') {
          if (json) io.stdout(jsonError('secrets-found', `the secret scan found ${r.findings.length} likely secret${r.findings.length === 1 ? '' : 's'}: nothing was pushed`, { findings: r.findings }));
          else {
            io.stderr(lang === 'zh-cn' ? `上传已停止：${flags.local} 中有 ${r.findings.length} 处疑似密钥（没有发送任何内容）：\n` : `push stopped: ${r.findings.length} likely secret${r.findings.length === 1 ? '' : 's'} in ${flags.local} (nothing was sent):\n`);
            for (const f of r.findings.slice(0, 50)) io.stderr(`  ${printable(f.path)}${f.line ? `:${f.line}` : ''}  ${f.kind}  ${printable(f.hint)}\n`);
            io.stderr(t(lang, 'Move them out of the folder, or run again with --allow-secrets.\n', '请把它们移出该目录，或加 --allow-secrets 再运行。\n'));
            if (r.scan.truncated) io.stderr(t(lang, 'note: {0}\n', '注意：{0}\n', cutText(r.scan, lang)));
          }
          return 3;
        }
        if (r.kind === 'scan-incomplete') {
          const cut = r.scan.truncated;
          if (json) io.stdout(jsonError('scan-incomplete', `${cutText(r.scan)}: nothing was pushed`, { reason: cut.reason, limit: cut.limit, filesSeen: cut.filesSeen, unscanned: r.scan.unscanned }));
          else {
            io.stderr(t(lang, 'push stopped: {0} (nothing was sent).\n', '上传已停止：{0}（没有发送任何内容）。\n', cutText(r.scan, lang)));
            io.stderr(
              cut.reason === 'maxBytes'
                ? t(lang, 'Raise the limit with --scan-limit-mb MIB, or run again with --allow-unscanned to upload the unchecked files anyway.\n', '用 --scan-limit-mb MIB 提高上限，或加 --allow-unscanned 再运行，照样上传未检查的文件。\n')
                : t(lang, 'Run again with --allow-unscanned to upload the unchecked files anyway.\n', '加 --allow-unscanned 再运行，照样上传未检查的文件。\n'),
            );
          }
          return 3;
        }
        io.stdout(json ? JSON.stringify(pushReportJson(r.report)) + '\n' : reportText(r.report, lang));
        return r.report.interrupted ? 130 : 0;
      });
    } finally {
      // A login that failed leaves the scan unwanted: it stops instead of holding the exit.
      ac.abort();
      ac.done();
    }
  },
};
