// `gpu-rent wipe TARGET DIR`: removes a memory-only upload folder from the box.
import { forTerminalLines } from '../../../core/text';
import { formatBytes } from '../../../core/format';
import { wipeRamDir } from '../../../remote/guards/ramdisk';
import { UsageError } from '../../args';
import { defineCommand } from '../../define';
import { CliFailure } from '../../failure';
import { t } from '../../words';
import type { CliCommand } from '../../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../../remote-common';

const specs = {
  force: { type: 'boolean', description: 'also remove a folder gpu-rent did not create, or one on disk (never /, your home, or a mount point)', zh: '也删除不是 gpu-rent 创建的文件夹或在磁盘上的文件夹（绝不删除 /、你的主目录或挂载点）' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent wipe TARGET DIR [--force]';
const SUMMARY = `Remove a memory-only upload (made by secure-upload) from the box. On tmpfs the data is gone once the files are deleted; nothing was ever written to disk. ${TARGET_HELP}`;

const SUMMARY_ZH = `从机器上删除只在内存中的上传（由 secure-upload 创建）。在 tmpfs 上文件删除后数据即消失；从来没有写到磁盘。${TARGET_HELP_ZH}`;

export const command: CliCommand = defineCommand({
  name: 'wipe',
  summary: 'Remove a memory-only upload folder from the box.',
  summaryZh: '从机器上删除只在内存中的上传目录。',
  usage: USAGE,
  about: SUMMARY,
  aboutZh: SUMMARY_ZH,
  flags: specs,
  positionals: { max: 2, names: 'TARGET DIR' },
  run: async (flags, { io, lang, positionals }): Promise<string> => {
    const dir = positionals[1];
    if (!dir) throw new UsageError('expects TARGET and the DIR to wipe on the box', '需要 TARGET 和机器上要清除的 DIR');
    const r = await withRemote(positionals[0], flags, io, (conn) => wipeRamDir(conn, dir, { force: flags.force === true }));
    // A refusal: its kind as the code, the sentence on stderr (the words as before, escapes made visible).
    const refuse = (code: string, en: string, zh: string, ...values: string[]) => new CliFailure(code, t('en', en, zh, ...values), { say: forTerminalLines(t(lang, en, zh, ...values)) });
    switch (r.kind) {
      case 'wiped':
        return forTerminalLines(t(lang, 'wiped {0} ({1})\n', '已清除 {0}（{1}）\n', r.resolved, formatBytes(r.bytes)));
      case 'absent':
        return forTerminalLines(t(lang, 'nothing to wipe: {0} does not exist on the box\n', '没有要清除的：机器上不存在 {0}\n', dir));
      case 'notOurs':
        throw refuse('not-ours', '{0} was not made by gpu-rent secure-upload; add --force to remove it anyway', '{0} 不是 gpu-rent secure-upload 创建的；仍要删除请加 --force', r.resolved);
      case 'notRam':
        throw refuse('not-ram', '{0} is on {1}, not RAM: deleting does not erase it from the disk. Add --force to delete it anyway', '{0} 在 {1} 上，不在内存中：删除并不会把它从磁盘上抹掉。仍要删除请加 --force', r.resolved, r.fsType);
      case 'refused':
        throw refuse('refused', 'refusing to remove {0} (the root, your home, a top-level folder or a mount point)', '拒绝删除 {0}（根目录、你的主目录、顶层文件夹或挂载点）', r.resolved || dir);
    }
  },
  text: (said) => said,
});
