// `gpu-rent release-check TARGET --remote DIR --local DIR`: before releasing an instance, lists
// the checkpoint files on the box that have no identical local copy. Exit 1 when any would be lost.
import { forTerminalLines } from '../../../core/text';
import { defineCommand } from '../../define';
import { CliFailure } from '../../failure';
import { formatBytes } from '../../../core/format';
import { RemoteFolderError } from '../../../remote/sync/list';
import { releaseGuard } from '../../../remote/guards/release-guard';
import { UsageError } from '../../args';
import { t } from '../../words';
import type { CliLang } from '../../lang';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';

const specs = {
  remote: { type: 'string', valueName: 'DIR', description: 'checkpoint folder on the box', zh: '机器上的检查点文件夹' },
  local: { type: 'string', valueName: 'DIR', description: 'your local copy (where gpu-rent sync pulls to)', zh: '你的本地副本（gpu-rent sync 拉取到的地方）' },
  json: { type: 'boolean', description: 'print the report as JSON', zh: '以 JSON 输出报告' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent release-check TARGET --remote DIR --local DIR [--json]';
const SUMMARY = `Before you release an instance (its data disk goes with it): lists checkpoint files on the box with no identical local copy. Exit 0 when nothing would be lost, 1 otherwise. ${TARGET_HELP}`;

const SUMMARY_ZH = `释放实例之前（数据盘会随之删除）：列出机器上在本地没有相同副本的检查点文件。不会丢失任何东西时退出码为 0，否则为 1。${TARGET_HELP_ZH}`;

/** The remote layer's folder error in the extension's words (the same sentences as a failed sync). */
function folderErrorText(e: RemoteFolderError, lang: CliLang): string {
  if (lang !== 'zh-cn') return e.message;
  if (e.code === 'remote-missing') return t(lang, 'The folder {0} does not exist on the box (yet): check the path, or start the training that writes it.', '机器上（还）没有文件夹 {0}：请检查路径，或先开始会写入它的训练。', e.path);
  if (e.code === 'remote-not-directory') return t(lang, '{0} on the box is a file, not a folder.', '机器上的 {0} 是文件，不是文件夹。', e.path);
  return t(lang, 'The folder {0} on the box cannot be read by this login.', '这个登录读不了机器上的文件夹 {0}。', e.path);
}

function reportZh(r: Awaited<ReturnType<typeof releaseGuard>>, remote: string, local: string): string[] {
  const lines: string[] = [];
  if (!r.atRisk.length) lines.push(`可以释放：${r.remoteRoot} 中的全部 ${r.remoteFiles} 个文件在 ${local} 中都有相同的本地副本`);
  else {
    lines.push(`释放会丢失 ${r.remoteRoot} 中的 ${r.atRisk.length} 个文件（${formatBytes(r.bytesAtRisk)}）：`);
    for (const f of r.atRisk.slice(0, 50)) lines.push(`  ${f.rel}（${formatBytes(f.size)}，${f.reason === 'missing' ? '没有本地副本' : '本地副本不同'}）`);
    if (r.atRisk.length > 50) lines.push(`  … 还有 ${r.atRisk.length - 50} 个`);
    lines.push(`请先拉回来：gpu-rent sync TARGET --remote ${remote} --local ${local}`);
  }
  if (r.unlisted.length) lines.push(`机器上有 ${r.unlisted.length} 个文件夹列不出来（${r.unlisted.slice(0, 3).join(', ')}）：不知道里面有什么`);
  if (r.skipped.length) lines.push(`跳过了 ${r.skipped.length} 个名字（不安全的名字，或指向文件夹外的链接）`);
  return lines;
}

type Checked = { r: Awaited<ReturnType<typeof releaseGuard>>; remote: string; local: string };

export const command: CliCommand = defineCommand({
  name: 'release-check',
  summary: 'Before a release: which checkpoints on the box are not safely copied home.',
  summaryZh: '释放前：机器上哪些检查点还没有安全地拷回本地。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 1, names: 'TARGET' },
  run: async (flags, { io, lang, positionals }): Promise<Checked> => {
    if (!flags.remote) throw new UsageError('--remote DIR is required (the checkpoint folder on the box)', '必须给出 --remote DIR（机器上的检查点文件夹）');
    if (!flags.local) throw new UsageError('--local DIR is required (your local copy)', '必须给出 --local DIR（你的本地副本）');
    return withRemote(positionals[0], flags, io, async (conn) => {
      try {
        return { r: await releaseGuard(conn, flags.remote!, flags.local!), remote: flags.remote!, local: flags.local! };
      } catch (e) {
        if (e instanceof RemoteFolderError) throw new CliFailure(e.code, folderErrorText(e, 'en'), { say: forTerminalLines(folderErrorText(e, lang)) });
        throw e;
      }
    });
  },
  json: ({ r }) => {
    // Exit 1 (files at risk, folders unlisted) carries `error` beside the report, as every failed --json run does.
    const error = r.atRisk.length
      ? { code: 'at-risk', message: `releasing would lose ${r.atRisk.length} file(s) from ${r.remoteRoot}: pull them first` }
      : r.unlisted.length
        ? { code: 'unlisted', message: `could not list ${r.unlisted.length} folder(s) on the box: what they hold is unknown` }
        : undefined;
    return error ? { ...r, error } : r;
  },
  text: ({ r, remote, local }, lang) => {
    if (lang === 'zh-cn') return forTerminalLines(reportZh(r, remote, local).join('\n') + '\n');
    const lines: string[] = [];
    if (!r.atRisk.length) lines.push(`safe to release: all ${r.remoteFiles} file${r.remoteFiles === 1 ? '' : 's'} in ${r.remoteRoot} have identical local copies in ${local}`);
    else {
      lines.push(`RELEASING WOULD LOSE ${r.atRisk.length} file${r.atRisk.length === 1 ? '' : 's'} (${formatBytes(r.bytesAtRisk)}) from ${r.remoteRoot}:`);
      for (const f of r.atRisk.slice(0, 50)) lines.push(`  ${f.rel} (${formatBytes(f.size)}, ${f.reason === 'missing' ? 'no local copy' : 'local copy differs'})`);
      if (r.atRisk.length > 50) lines.push(`  … and ${r.atRisk.length - 50} more`);
      lines.push(`pull them first: gpu-rent sync TARGET --remote ${remote} --local ${local}`);
    }
    if (r.unlisted.length) lines.push(`could not list ${r.unlisted.length} folder(s) on the box (${r.unlisted.slice(0, 3).join(', ')}): what they hold is unknown`);
    if (r.skipped.length) lines.push(`${r.skipped.length} name(s) skipped (unsafe names or links out of the folder)`);
    return forTerminalLines(lines.join('\n') + '\n');
  },
  exit: ({ r }) => (r.atRisk.length || r.unlisted.length ? 1 : 0),
});
