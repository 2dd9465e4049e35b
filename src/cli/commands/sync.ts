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
import { REMOTE_FLAGS, TARGET_HELP, withRemote } from '../remote-common';
import { errorCode, jsonError } from '../json-error';

const specs = {
  remote: { type: 'string', valueName: 'DIR', description: 'folder on the box to pull from (e.g. /root/autodl-tmp/checkpoints)' },
  local: { type: 'string', valueName: 'DIR', description: 'folder on this computer to pull into (created if missing)' },
  'keep-last': { type: 'number', valueName: 'N', min: 1, max: 100000, integer: true, description: 'only the newest N complete top-level entries (checkpoint folders or files)' },
  watch: { type: 'number', valueName: 'SECONDS', min: 0, exclusiveMin: true, max: 86400, description: 'repeat every SECONDS until Ctrl-C, reconnecting when the link drops' },
  delete: { type: 'boolean', description: 'remove local files synced earlier that are gone from the box (or fell out of --keep-last)' },
  settle: { type: 'number', valueName: 'SECONDS', min: 0, max: 3600, description: 'a file is finished once unchanged this long (default 5)' },
  json: { type: 'boolean', description: 'print { files, bytes, skipped, seconds, ... } as JSON (one line per pass with --watch)' },
  'box-hash': { type: 'boolean', description: 'also SHA-256 each big file on the box (a second read of it there); by default its unchanged identity is checked' },
  fsync: { type: 'boolean', description: 'flush each file to disk before it is published (before releasing the box, say)' },
  force: { type: 'boolean', description: "put the box's version over local files changed since the last sync (by default they are kept and the box's version is saved beside them)" },
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
    ...(r.compressed ? { compressed: r.compressed } : {}),
  };
}

function reportText(r: SyncReport): string {
  const lines: string[] = [];
  for (const s of r.skipped) lines.push(`skipped ${printable(s.name)}: ${REASON_TEXT[s.reason] ?? s.reason}`);
  for (const d of r.deleted) lines.push(`deleted ${printable(d)}`);
  for (const k of r.kept) lines.push(`kept ${printable(k.name)}: changed here since the last sync; the box's version is saved beside it as ${printable(k.boxCopy)} (--force replaces)`);
  const rate = r.seconds > 0 && r.bytes > 0 ? ` (${formatBytes(r.bytes / r.seconds)}/s)` : '';
  const extra = [r.unchanged ? `${r.unchanged} unchanged` : '', r.verified ? `${r.verified} already identical` : '', r.skipped.length ? `${r.skipped.length} skipped` : '', r.deleted.length ? `${r.deleted.length} deleted` : '', r.kept.length ? `${r.kept.length} local file${r.kept.length === 1 ? '' : 's'} kept` : '', r.keptEarlier ? `${r.keptEarlier} kept as before` : '']
    .filter(Boolean)
    .join(', ');
  lines.push(`${r.interrupted ? 'interrupted: ' : ''}pulled ${r.files} file${r.files === 1 ? '' : 's'}, ${formatBytes(r.bytes)} in ${r.seconds.toFixed(1)} s${rate}${extra ? `; ${extra}` : ''}`);
  return lines.join('\n') + '\n';
}

function progressPrinter(io: CliIO, json: boolean): (p: SyncProgress) => void {
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
      io.stderr(`\r\x1b[K${printable(p.name)}  ${Math.floor((p.done / p.size) * 100)}%  ${formatBytes(p.done)} of ${formatBytes(p.size)}`);
      return;
    }
    if (p.kind !== 'bytes') clear();
    // A kept file is said once, in the pass's report.
    if (p.kind === 'file-done' && !p.verifiedOnly && p.keptAs === undefined) io.stdout(`pulled ${printable(p.name)} (${formatBytes(p.size)}${p.bytes < p.size ? `, resumed: ${formatBytes(p.bytes)} read` : ''})\n`);
    else if (p.kind === 'waiting-to-settle') io.stderr(`waiting ${p.seconds} s for ${p.files} file${p.files === 1 ? '' : 's'} still being written\n`);
    else if (p.kind === 'part-discarded') io.stderr(`note: ${printable(p.name)}.part did not match the box; pulling it again from the start\n`);
  };
}

export const command: CliCommand = {
  name: 'sync',
  summary: 'Pull checkpoints off a rented box: verified, resumable, only new files; --watch keeps going.',
  help: () => formatHelp(USAGE, SUMMARY, specs),
  run: async (argv, io) => {
    const { flags, positionals } = parseArgs(argv, specs, { maxPositionals: 1, positionalNames: 'TARGET' });
    if (!flags.remote) throw new UsageError('missing --remote DIR (the folder on the box to pull from)');
    if (!flags.local) throw new UsageError('missing --local DIR (the folder on this computer to pull into)');
    const json = flags.json === true;

    // Ctrl-C: stop starting files, let the current reads land in their .part, then exit.
    // A second Ctrl-C leaves at once (the .part files stay valid prefixes either way).
    const ac = new AbortController();
    const onSigint = () => {
      if (ac.signal.aborted) process.exit(130);
      io.stderr('stopping: unfinished files stay as .part and resume next time (Ctrl-C again to quit now)\n');
      ac.abort();
    };
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);
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
          durable: flags.fsync === true,
          force: flags.force === true,
          signal: ac.signal,
          log: (line: string) => io.stderr(`gpu-rent sync: ${forTerminal(line)}\n`),
        };
        const onProgress = progressPrinter(io, json);
        if (flags.watch === undefined) {
          const r = await syncOnce(syncRemote(conn), base, onProgress);
          io.stdout(json ? jsonForTerminal(reportJson(r)) + '\n' : reportText(r));
          return r.interrupted ? 130 : 0;
        }
        if (!json) io.stderr(`watching ${flags.remote} every ${flags.watch} s; Ctrl-C to stop\n`);
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
                if (r.files || r.deleted.length || r.kept.length || r.interrupted || skipped !== lastSkipped) io.stdout(reportText(r));
                lastSkipped = skipped;
              }
            } else {
              const msg = e.error.message.split('\n')[0] ?? '';
              if (json) io.stdout(jsonError(errorCode(e.error), msg, { retryInSeconds: Math.round(e.retryInMs / 100) / 10 }, 0));
              else io.stderr(`${msg}; retrying in ${(e.retryInMs / 1000).toFixed(1)} s\n`);
            }
          },
          onProgress,
        );
        return 0;
      });
    } finally {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    }
  },
};
