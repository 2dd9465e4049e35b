// `gpu-rent sync TARGET --remote DIR --local DIR [--keep-last N] [--watch SECONDS] [--delete]
// [--force] [--json]`: pull checkpoints off the rented box, each file verified before it
// appears; a local file changed since the last sync is kept, the box's version saved beside it.
import { forTerminal, hasControl, jsonForTerminal } from '../../core/text';
import { formatBytes } from '../../core/format';
import { syncRemote } from '../../app/sync';
import { RemoteError } from '../../remote/errors';
import { knownHostsName } from '../../remote/target';
import { syncOnce, watchSync, type SkipReason, type SyncProgress, type SyncReport } from '../../remote/sync';
import { formatHelp, parseArgs, UsageError } from '../args';
import type { CliCommand, CliIO } from '../command';
import { REMOTE_FLAGS, TARGET_HELP, TARGET_HELP_ZH, withRemote } from '../remote-common';
import { errorCode, jsonError } from '../json-error';
import { cliLang, type CliLang } from '../lang';
import { onInterrupt } from '../interrupt';
import { helpLang, t } from '../words';

const specs = {
  remote: { type: 'string', valueName: 'DIR', description: 'folder on the box to pull from (e.g. /root/autodl-tmp/checkpoints)', zh: '要从机器上拉取的目录（如 /root/autodl-tmp/checkpoints）' },
  local: { type: 'string', valueName: 'DIR', description: 'folder on this computer to pull into (created if missing)', zh: '拉取到本机的目录（不存在则创建）' },
  'keep-last': { type: 'number', valueName: 'N', min: 1, max: 100000, integer: true, description: 'only the newest N complete top-level entries (checkpoint folders or files)', zh: '只取最新的 N 个完整的顶层条目（检查点目录或文件）' },
  watch: { type: 'number', valueName: 'SECONDS', min: 0, exclusiveMin: true, max: 86400, description: 'repeat every SECONDS until Ctrl-C, reconnecting when the link drops', zh: '每 SECONDS 秒重复一次，直到 Ctrl-C；连接断开时自动重连' },
  delete: { type: 'boolean', description: 'remove local files synced earlier that are gone from the box (or fell out of --keep-last)', zh: '删除以前同步过、但机器上已没有（或超出 --keep-last）的本地文件' },
  settle: { type: 'number', valueName: 'SECONDS', min: 0, max: 3600, description: 'a file is finished once unchanged this long (default 5)', zh: '文件在这么长时间内不变才算写完（默认 5 秒）' },
  json: { type: 'boolean', description: 'print { files, bytes, skipped, seconds, ... } as JSON (one line per pass with --watch)', zh: '以 JSON 输出 { files, bytes, skipped, seconds, ... }（配合 --watch 时每轮一行）' },
  'box-hash': { type: 'boolean', description: 'also SHA-256 each big file on the box (a second read of it there); by default its unchanged identity is checked', zh: '也在机器上计算每个大文件的 SHA-256（在那里再读一遍）；默认只检查其标识未变' },
  fsync: { type: 'boolean', description: 'flush each file to disk before it is published (before releasing the box, say)', zh: '每个文件发布前先刷到磁盘（比如释放机器之前）' },
  force: { type: 'boolean', description: "put the box's version over local files changed since the last sync (by default they are kept and the box's version is saved beside them)", zh: '用机器上的版本覆盖上次同步后本地改过的文件（默认保留本地文件，把机器上的版本另存在旁边）' },
  ...REMOTE_FLAGS,
} as const;

const USAGE = 'gpu-rent sync TARGET --remote DIR --local DIR [--keep-last N] [--watch SECONDS] [--delete] [--box-hash] [--fsync] [--force] [--json]';
const SUMMARY = [
  'Pull new and changed files (checkpoints) from a folder on the rented box. Each file is written',
  'as NAME.part, checked against the box, and only then renamed into place: its SHA-256 is',
  "taken as it arrives; small files are compared with the box's SHA-256, big ones (4 MiB and",
  'up) must keep the same inode, size and nanosecond change time on the box from before the',
  'first byte to after the last (no write can happen without changing it; --box-hash adds',
  "the box's SHA-256, and boxes whose stat cannot tell get it anyway). An interrupted pull",
  'resumes from its .part. Files still being written are left for the next pass. Local files',
  'are only deleted with --delete, and never when the folder on the box is empty. Hostile',
  'names and links pointing out of the folder are skipped and listed.',
  'A local file is only replaced if it is what sync last wrote there: one you changed since',
  '(or one sync never wrote) is kept, and the box\'s version is saved beside it as',
  '"NAME (box copy DATE).EXT" (DATE: the box file\'s modification day), once per version;',
  '--force replaces such files instead.',
  '--keep-last N takes the newest N complete top-level entries by modification time (an entry',
  'still being written does not count yet); add --delete to also drop older ones locally.',
  '',
  TARGET_HELP,
  '',
  'Examples:',
  "  gpu-rent sync 'ssh -p 12345 root@connect.westb.seetacloud.com' --remote /root/autodl-tmp/output --local ./ckpt",
  '  gpu-rent sync mybox --remote /root/autodl-tmp/output --local ./ckpt --keep-last 3 --delete --watch 300',
].join('\n');

const SUMMARY_ZH = [
  '从租到的机器上的目录拉取新增和改动的文件（检查点）。每个文件先写成 NAME.part，与机器上的',
  '核对后才改名到位：边接收边计算 SHA-256；小文件与机器上的 SHA-256 比对，大文件（4 MiB 及以上）',
  '从第一个字节之前到最后一个字节之后，在机器上的 inode、大小和纳秒级变更时间都必须不变',
  '（任何写入都会改变它；--box-hash 另外比对机器上的 SHA-256，stat 无法判断的机器总会比对）。',
  '中断的拉取从 .part 续传。仍在写入的文件留到下一轮。只有加 --delete 才删除本地文件，',
  '而且机器上的目录为空时从不删除。恶意文件名和指向目录外的链接会被跳过并列出。',
  '只有本地文件正是 sync 上次写入的内容时才会被替换：上次之后你改过的（或 sync 从未写过的）会保留，',
  '机器上的版本另存在旁边，名为 "NAME (box copy DATE).EXT"（DATE：机器上文件的修改日期），每个版本一次；',
  '--force 则直接替换。',
  '--keep-last N 按修改时间取最新的 N 个完整顶层条目（仍在写入的条目暂不计入）；',
  '加 --delete 还会在本地删掉更旧的。',
  '',
  TARGET_HELP_ZH,
  '',
  '示例：',
  "  gpu-rent sync 'ssh -p 12345 root@connect.westb.seetacloud.com' --remote /root/autodl-tmp/output --local ./ckpt",
  '  gpu-rent sync mybox --remote /root/autodl-tmp/output --local ./ckpt --keep-last 3 --delete --watch 300',
].join('\n');

const REASON_ZH: Record<SkipReason, string> = {
  'empty-name': '文件名为空',
  'dot-segment': '文件名含有 "." 或 ".." 段',
  'absolute-path': '绝对路径',
  'separator-in-name': '文件名含有 "/"',
  backslash: '文件名含有反斜杠',
  nul: '文件名含有 NUL 字节',
  'control-char': '文件名含有控制字符',
  'not-utf8': '文件名不是有效的 UTF-8',
  'device-name': '保留的设备名（CON、NUL、AUX、COM1…）',
  'windows-reserved-char': '文件名含有 Windows 无法保存的字符（< > : " | ? *）',
  'trailing-dot-or-space': '文件名以点或空格结尾',
  'too-long': '文件名或路径太长',
  'reserved-name': '文件名是 sync 自用的保留名',
  'git-dir': '名为 .git（任何写法）：不写入，以免其中的设置在本机运行命令',
  'case-collision': '与另一个文件只有大小写不同',
  'symlink-outside': '链接指向目录之外',
  'symlink-dangling': '链接指向不存在的目标',
  'symlink-to-directory': '指向目录的链接（不跟随）',
  'special-file': '不是普通文件',
  unreadable: '在机器上无法读取',
  'still-being-written': '仍在写入（在稳定时间内有变化）',
  'changed-during-download': '下载过程中有变化（保留为 .part；下一轮再拉）',
  'verify-failed': 'SHA-256 两次都与机器上的不符',
  'local-conflict': '本地有目录或链接挡在那里',
  'local-modified': '同步后在本地改过：已保留',
  'remote-empty-no-delete': '机器上的目录为空：本地没有删除任何文件',
  'remote-swapped': '列出之后在机器上变成了链接或另一个文件：未拉取',
};

const REASON_TEXT: Record<SkipReason, string> = {
  'empty-name': 'empty name',
  'dot-segment': 'name contains a "." or ".." segment',
  'absolute-path': 'absolute path',
  'separator-in-name': 'name contains "/"',
  backslash: 'name contains a backslash',
  nul: 'name contains a NUL byte',
  'control-char': 'name contains control characters',
  'not-utf8': 'name is not valid UTF-8',
  'device-name': 'reserved device name (CON, NUL, AUX, COM1…)',
  'windows-reserved-char': 'name has characters Windows cannot store (< > : " | ? *)',
  'trailing-dot-or-space': 'name ends in a dot or space',
  'too-long': 'name or path too long',
  'reserved-name': "name is reserved for sync's own files",
  'git-dir': 'named .git (in some spelling): not written here, its settings could run commands on this computer',
  'case-collision': 'differs only in case from another file',
  'symlink-outside': 'link points outside the folder',
  'symlink-dangling': 'link points nowhere',
  'symlink-to-directory': 'link to a folder (not followed)',
  'special-file': 'not a regular file',
  unreadable: 'cannot be read on the box',
  'still-being-written': 'still being written (changed within the settle time)',
  'changed-during-download': 'changed during the download (kept as .part; next pass)',
  'verify-failed': 'SHA-256 did not match the box twice',
  'local-conflict': 'a local folder or link is in the way',
  'local-modified': 'changed locally since it was synced: kept',
  'remote-empty-no-delete': 'folder on the box is empty: nothing deleted locally',
  'remote-swapped': 'became a link or another file on the box after it was listed: not pulled',
};

/** Names from the box may carry terminal escapes: show those quoted. */
function printable(name: string): string {
  return hasControl(name) ? `"${forTerminal(name)}"` : name;
}

export function reportJson(r: SyncReport): Record<string, unknown> {
  return {
    files: r.files,
    bytes: r.bytes,
    skipped: r.skipped.map((s) => ({ name: s.name, reason: s.reason })),
    seconds: r.seconds,
    unchanged: r.unchanged,
    verified: r.verified,
    byIdentity: r.byIdentity,
    deleted: r.deleted,
    interrupted: r.interrupted,
    kept: r.kept.map((k) => ({ name: k.name, boxCopy: k.boxCopy })),
    keptEarlier: r.keptEarlier,
    replaced: r.replaced.map((k) => ({ name: k.name, previous: k.previous })),
    ...(r.compressed ? { compressed: r.compressed } : {}),
  };
}

function reportTextZh(r: SyncReport): string {
  const lines: string[] = [];
  for (const s of r.skipped) lines.push(`已跳过 ${printable(s.name)}：${REASON_ZH[s.reason] ?? s.reason}`);
  for (const d of r.deleted) lines.push(`已删除 ${printable(d)}`);
  for (const k of r.kept) lines.push(`已保留 ${printable(k.name)}：上次同步后在本地改过；机器上的版本另存为 ${printable(k.boxCopy)}（--force 会替换）`);
  for (const k of r.replaced) lines.push(`已替换 ${printable(k.name)}：机器上有较新的版本；之前同步的旧版本移到了 ${printable(k.previous)}`);
  const rate = r.seconds > 0 && r.bytes > 0 ? `（${formatBytes(r.bytes / r.seconds)}/s）` : '';
  const extra = [r.unchanged ? `${r.unchanged} 个未变` : '', r.verified ? `${r.verified} 个已相同` : '', r.skipped.length ? `${r.skipped.length} 个已跳过` : '', r.deleted.length ? `${r.deleted.length} 个已删除` : '', r.kept.length ? `保留了 ${r.kept.length} 个本地文件` : '', r.keptEarlier ? `${r.keptEarlier} 个照旧保留` : '', r.replaced.length ? `替换了 ${r.replaced.length} 个之前同步的文件（旧版本在 .gpu-rent-previous/）` : ''].filter(Boolean).join('，');
  lines.push(`${r.interrupted ? '已中断：' : ''}拉取了 ${r.files} 个文件，${formatBytes(r.bytes)}，用时 ${r.seconds.toFixed(1)} 秒${rate}${extra ? `；${extra}` : ''}`);
  return lines.join('\n') + '\n';
}

function reportText(r: SyncReport, lang: CliLang = 'en'): string {
  if (lang === 'zh-cn') return reportTextZh(r);
  const lines: string[] = [];
  for (const s of r.skipped) lines.push(`skipped ${printable(s.name)}: ${REASON_TEXT[s.reason] ?? s.reason}`);
  for (const d of r.deleted) lines.push(`deleted ${printable(d)}`);
  for (const k of r.kept) lines.push(`kept ${printable(k.name)}: changed here since the last sync; the box's version is saved beside it as ${printable(k.boxCopy)} (--force replaces)`);
  for (const k of r.replaced) lines.push(`replaced ${printable(k.name)}: the box has a newer version; the earlier synced copy moved to ${printable(k.previous)}`);
  const rate = r.seconds > 0 && r.bytes > 0 ? ` (${formatBytes(r.bytes / r.seconds)}/s)` : '';
  const extra = [r.unchanged ? `${r.unchanged} unchanged` : '', r.verified ? `${r.verified} already identical` : '', r.skipped.length ? `${r.skipped.length} skipped` : '', r.deleted.length ? `${r.deleted.length} deleted` : '', r.kept.length ? `${r.kept.length} local file${r.kept.length === 1 ? '' : 's'} kept` : '', r.keptEarlier ? `${r.keptEarlier} kept as before` : '', r.replaced.length ? `${r.replaced.length} earlier synced file${r.replaced.length === 1 ? '' : 's'} replaced (the earlier in .gpu-rent-previous/)` : '']
    .filter(Boolean)
    .join(', ');
  lines.push(`${r.interrupted ? 'interrupted: ' : ''}pulled ${r.files} file${r.files === 1 ? '' : 's'}, ${formatBytes(r.bytes)} in ${r.seconds.toFixed(1)} s${rate}${extra ? `; ${extra}` : ''}`);
  return lines.join('\n') + '\n';
}

function progressPrinter(io: CliIO, json: boolean, lang: CliLang): (p: SyncProgress) => void {
  // A live line for big files, only on a terminal (never in pipes or logs).
  const live = !json && Boolean(process.stderr.isTTY);
  let lastDraw = 0;
  let drawn = false;
  const clear = () => {
    if (drawn) io.stderr('\r\x1b[K');
    drawn = false;
  };
  return (p) => {
    if (json) return;
    if (live && p.kind === 'bytes' && p.size > 0 && Date.now() - lastDraw > 500) {
      lastDraw = Date.now();
      drawn = true;
      io.stderr(`\r\x1b[K${printable(p.name)}  ${Math.floor((p.done / p.size) * 100)}%  ${t(lang, '{0} of {1}', '{0} / {1}', formatBytes(p.done), formatBytes(p.size))}`);
      return;
    }
    if (p.kind !== 'bytes') clear();
    // A kept file is said once, in the pass's report.
    if (p.kind === 'file-done' && !p.verifiedOnly && p.keptAs === undefined) io.stdout(lang === 'zh-cn' ? `已拉取 ${printable(p.name)}（${formatBytes(p.size)}${p.bytes < p.size ? `，续传：读了 ${formatBytes(p.bytes)}` : ''}）\n` : `pulled ${printable(p.name)} (${formatBytes(p.size)}${p.bytes < p.size ? `, resumed: ${formatBytes(p.bytes)} read` : ''})\n`);
    else if (p.kind === 'waiting-to-settle') io.stderr(lang === 'zh-cn' ? `等待 ${p.seconds} 秒：${p.files} 个文件仍在写入\n` : `waiting ${p.seconds} s for ${p.files} file${p.files === 1 ? '' : 's'} still being written\n`);
    else if (p.kind === 'part-discarded') io.stderr(t(lang, 'note: {0}.part did not match the box; pulling it again from the start\n', '注意：{0}.part 与机器上的不符；从头重新拉取\n', printable(p.name)));
  };
}

export const command: CliCommand = {
  name: 'sync',
  summary: 'Pull checkpoints off a rented box: verified, resumable, only new files; --watch keeps going.',
  summaryZh: '从租到的机器拉取检查点：逐个校验、可续传、只拉新文件；--watch 持续同步。',
  help: (ctx) => formatHelp(USAGE, SUMMARY, specs, helpLang(ctx), SUMMARY_ZH),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    const lang = cliLang(flags.lang, io.env);
    if (!flags.remote) throw new UsageError('missing --remote DIR (the folder on the box to pull from)', '缺少 --remote DIR（要从机器上拉取的目录）');
    if (!flags.local) throw new UsageError('missing --local DIR (the folder on this computer to pull into)', '缺少 --local DIR（拉取到本机的目录）');
    const json = flags.json === true;

    // Ctrl-C: stop starting files, let the current reads land in their .part, then exit.
    // A second Ctrl-C leaves at once (the .part files stay valid prefixes either way).
    const ac = onInterrupt({
      secondExits: true,
      sigterm: true,
      onFirst: () => io.stderr(t(lang, 'stopping: unfinished files stay as .part and resume next time (Ctrl-C again to quit now)\n', '正在停止：没拉完的文件保留为 .part，下次续传（再按一次 Ctrl-C 立即退出）\n')),
    });
    try {
      return await withRemote(positionals[0], flags, io, async (conn, target) => {
        const base = {
          remoteDir: flags.remote!,
          localDir: flags.local!,
          source: `${conn.user}@${knownHostsName(target.host, target.port)}`,
          keepLast: flags['keep-last'],
          delete: flags.delete === true,
          settleSeconds: flags.settle ?? 5,
          boxHash: flags['box-hash'] === true,
          streamGzip: io.env.GPU_RENT_STREAM_GZIP === '1' ? true : io.env.GPU_RENT_STREAM_GZIP === '0' ? false : undefined,
          durable: flags.fsync === true,
          force: flags.force === true,
          signal: ac.signal,
          log: (line: string) => io.stderr(`gpu-rent sync: ${forTerminal(line)}\n`),
        };
        const onProgress = progressPrinter(io, json, lang);
        if (flags.watch === undefined) {
          const r = await syncOnce(syncRemote(conn), base, onProgress);
          io.stdout(json ? jsonForTerminal(reportJson(r)) + '\n' : reportText(r, lang));
          return r.interrupted ? 130 : 0;
        }
        if (!json) io.stderr(t(lang, 'watching {0} every {1} s; Ctrl-C to stop\n', '每 {1} 秒同步一次 {0}；Ctrl-C 停止\n', flags.remote!, flags.watch));
        // Text mode repeats a pass's skipped list only when it changes (hostile names stay put).
        let lastSkipped = '';
        await watchSync(
          async () => {
            await conn.connect(); // reconnects after a drop (backoff inside), fails for good on auth/host key
            return syncRemote(conn);
          },
          { ...base, intervalSeconds: flags.watch, isFatal: (e) => e instanceof RemoteError && e.fatal },
          (e) => {
            if (e.kind === 'round') {
              const r = e.report;
              if (json) io.stdout(jsonForTerminal({ ...reportJson(r), at: new Date().toISOString() }) + '\n');
              else {
                const skipped = JSON.stringify(r.skipped.filter((s) => s.reason !== 'still-being-written'));
                if (r.files || r.deleted.length || r.kept.length || r.interrupted || skipped !== lastSkipped) io.stdout(reportText(r, lang));
                lastSkipped = skipped;
              }
            } else {
              const msg = e.error.message.split('\n')[0] ?? '';
              if (json) io.stdout(jsonError(errorCode(e.error), msg, { retryInSeconds: Math.round(e.retryInMs / 100) / 10 }, 0));
              else io.stderr(t(lang, '{0}; retrying in {1} s\n', '{0}；{1} 秒后重试\n', msg, (e.retryInMs / 1000).toFixed(1)));
            }
          },
          onProgress,
        );
        return 0;
      });
    } finally {
      ac.done();
    }
  },
};
