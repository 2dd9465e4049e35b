// Memory-only upload: files stream over SFTP straight into a RAM-backed folder on the box
// (/dev/shm by default), so plaintext never touches the platform's unencrypted disk. The
// folder is checked before anything is written (tmpfs/ramfs, room on the mount, MemAvailable
// minus a reserve for the job), created private (0700, files 0600) and marked as ours so a
// later wipe removes only what we put there.
import { createReadStream, lstatSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { checkRamUpload, DEFAULT_RAM_RESERVE_BYTES, isRamFs, type RamTargetFacts, type RamUploadRefusal } from '../../core/guards/ramdisk';
import { badInput, boxFailed, boxOutput } from '../errors';
import { shQuote } from '../shell';
import { boxPath, keyValues, runSh, type BoxSession } from './session';
import { trimEndOf } from '../../core/boxLines';
import { stat } from '../sync/sftp-util';

export const DEFAULT_RAM_DIR = '/dev/shm/gpu-rent';
/** Marks a folder as a memory-only upload made by gpu-rent. */
export const RAM_MARKER = '.gpu-rent-ram';

export interface RamTargetInfo extends RamTargetFacts {
  /** The folder itself exists already. */
  exists: boolean;
  /** Physical path of the folder, or of its nearest existing parent when it does not exist. */
  resolved: string;
}

const INSPECT = `p=$D
while [ ! -e "$p" ] && [ "$p" != / ]; do p=$(dirname "$p"); done
[ -e "$D" ] && echo exists=1 || echo exists=0
r=$(cd "$p" 2>/dev/null && pwd -P) || r=$p
echo "resolved=$r"
fs=$(stat -f -c %T "$r" 2>/dev/null) || fs=$(df -T "$r" 2>/dev/null | awk 'NR==2 {print $2}')
echo "fstype=$fs"
echo "availkb=$(df -P -k "$r" 2>/dev/null | awk 'NR==2 {print $4}')"
echo "memkb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo 2>/dev/null)"`;

function parseInspect(stdout: string): RamTargetInfo {
  const kv = keyValues(stdout);
  const kb = (k: string) => {
    const v = kv.get(k);
    return v && /^\d+$/.test(v) ? Number(v) * 1024 : null;
  };
  return { exists: kv.get('exists') === '1', resolved: kv.get('resolved') ?? '', fsType: kv.get('fstype') || 'unknown', mountAvailableBytes: kb('availkb'), memAvailableBytes: kb('memkb') };
}

export async function inspectRamTarget(session: BoxSession, dir: string): Promise<RamTargetInfo> {
  const r = await runSh(session, `D=${boxPath(dir)}\n${INSPECT}`, { what: { step: 'ram-check' } });
  return parseInspect(r.stdout);
}

export class RamUploadRefused extends Error {
  constructor(
    readonly refusal: RamUploadRefusal,
    readonly target: RamTargetInfo,
  ) {
    super(describeRefusal(refusal, target));
    this.name = 'RamUploadRefused';
  }
}

const mib = (b: number) => `${(b / 1024 ** 2).toFixed(b < 10 * 1024 ** 2 ? 1 : 0)} MiB`;

export function describeRefusal(r: RamUploadRefusal, t: RamTargetInfo): string {
  switch (r.kind) {
    case 'notRamBacked':
      return `refusing to upload: ${t.resolved || 'the folder'} is on a ${r.fsType} file system, not RAM (tmpfs/ramfs); plaintext would reach the box's disk. Use /dev/shm or another tmpfs folder.`;
    case 'mountTooSmall':
      return `refusing to upload: the files need ${mib(r.needBytes)} but the RAM folder's mount has ${mib(r.availableBytes)} free (containers often limit /dev/shm to 64 MiB).`;
    case 'ramShort':
      return `refusing to upload: the files need ${mib(r.needBytes)} and ${mib(r.reserveBytes)} must stay free for the job, but the box has only ${mib(r.memAvailableBytes)} of RAM available.`;
    case 'memoryUnknown':
      return 'refusing to upload: could not read MemAvailable from /proc/meminfo on the box.';
  }
}

export interface LocalFile {
  localPath: string;
  /** Path under the upload folder, with '/' separators. */
  relPath: string;
  size: number;
}

/** Regular files named by the user (folders walked; links and devices skipped, reported). */
export function collectLocalFiles(paths: readonly string[]): { files: LocalFile[]; skipped: { path: string; reason: string }[] } {
  const files: LocalFile[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const walk = (abs: string, rel: string) => {
    let st;
    try {
      st = lstatSync(abs);
    } catch (e) {
      skipped.push({ path: abs, reason: (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read' });
      return;
    }
    if (st.isSymbolicLink()) {
      // A link named directly is followed; links inside folders are not (they may point anywhere).
      if (rel === basename(abs)) {
        try {
          const target = statSync(abs);
          if (target.isFile()) files.push({ localPath: abs, relPath: rel, size: target.size });
          else skipped.push({ path: abs, reason: 'link to something other than a file' });
        } catch {
          skipped.push({ path: abs, reason: 'broken link' });
        }
      } else skipped.push({ path: abs, reason: 'symbolic link inside a folder' });
      return;
    }
    if (st.isFile()) files.push({ localPath: abs, relPath: rel, size: st.size });
    else if (st.isDirectory()) for (const name of readdirSync(abs).sort()) walk(join(abs, name), `${rel}/${name}`);
    else skipped.push({ path: abs, reason: 'not a regular file' });
  };
  for (const p of paths) walk(p, basename(trimEndOf(p, '\\/')) || 'file');
  return { files, skipped };
}

export interface SecureUploadResult {
  dir: string;
  target: RamTargetInfo;
  files: { relPath: string; bytes: number }[];
  bytes: number;
  skipped: { path: string; reason: string }[];
}

/**
 * Streams local files or folders into `dir` on the box, only after the checks pass. The remote
 * path must be absolute (the SFTP server does not expand ~ or $HOME).
 */
export async function secureUpload(
  session: BoxSession,
  localPaths: readonly string[],
  dir: string = DEFAULT_RAM_DIR,
  opts: { reserveBytes?: number; onFile?: (relPath: string, bytes: number) => void } = {},
): Promise<SecureUploadResult> {
  if (!dir.startsWith('/')) throw badInput({ code: 'ram-dir-relative', dir });
  if (dir.split('/').includes('..')) throw badInput({ code: 'ram-dir-dotdot', dir });
  const { files, skipped } = collectLocalFiles(localPaths);
  if (!files.length) throw badInput({ code: 'upload-nothing', skipped });
  const total = files.reduce((a, f) => a + f.size, 0);
  const reserve = opts.reserveBytes ?? DEFAULT_RAM_RESERVE_BYTES;

  const before = await inspectRamTarget(session, dir);
  const pre = checkRamUpload(before, total, reserve);
  if (!pre.ok) throw new RamUploadRefused(pre.refusal, before);

  // Create it private, then check the folder itself: a link on the way could lead to disk.
  const subdirs = [...new Set(files.map((f) => f.relPath.split('/').slice(0, -1).join('/')).filter(Boolean))];
  const mk = await runSh(
    session,
    `D=${boxPath(dir)}\numask 077\nmkdir -p "$D" && chmod 700 "$D" && date +%s > "$D/${RAM_MARKER}" || exit 4\n${subdirs.map((s) => `mkdir -p "$D"/${shQuote(s)} || exit 4`).join('\n')}\n${INSPECT}`,
    { what: { step: 'ram-create' } },
  );
  const after = parseInspect(mk.stdout);
  if (!isRamFs(after.fsType)) {
    await wipeRamDir(session, dir, { force: true }).catch(() => undefined);
    throw new RamUploadRefused({ kind: 'notRamBacked', fsType: after.fsType }, after);
  }

  const sftp = await session.sftp();
  const base = trimEndOf(after.resolved, '/');
  const done: { relPath: string; bytes: number }[] = [];
  for (const f of files) {
    const remote = `${base}/${f.relPath}`;
    try {
      await pipeline(createReadStream(f.localPath), sftp.createWriteStream(remote, { mode: 0o600, flags: 'w' }));
      const size = (await stat(sftp, remote)).size;
      if (size !== f.size) throw new Error(`size on the box is ${size}, expected ${f.size}`);
    } catch (e) {
      throw boxFailed({ code: 'ram-upload-failed', file: f.relPath, dir, output: boxOutput((e as Error).message) });
    }
    done.push({ relPath: f.relPath, bytes: f.size });
    opts.onFile?.(f.relPath, f.size);
  }
  return { dir: base, target: after, files: done, bytes: total, skipped };
}

export type WipeResult = { kind: 'wiped'; bytes: number; resolved: string } | { kind: 'absent' } | { kind: 'notOurs'; resolved: string } | { kind: 'notRam'; resolved: string; fsType: string } | { kind: 'refused'; resolved: string };

/**
 * Removes a memory-only upload folder. Only folders we created (marker inside) on tmpfs/ramfs,
 * unless `force`; never "/", $HOME or a top-level folder.
 */
export async function wipeRamDir(session: BoxSession, dir: string, opts: { force?: boolean } = {}): Promise<WipeResult> {
  const force = opts.force ? 1 : 0;
  const r = await runSh(
    session,
    `D=${boxPath(dir)}
[ -d "$D" ] || { echo result=absent; exit 0; }
r=$(cd "$D" && pwd -P) || exit 5
echo "resolved=$r"
h=$(cd "$HOME" 2>/dev/null && pwd -P)
[ "$r" = "$h" ] && { echo result=refused; exit 0; }
case "$r" in /*/*) ;; *) echo result=refused; exit 0 ;; esac
# A mount point itself (/dev/shm) is never removed, only folders inside it.
[ "$(df -P "$r" 2>/dev/null | awk 'NR==2 {print $6}')" = "$r" ] && { echo result=refused; exit 0; }
fs=$(stat -f -c %T "$r" 2>/dev/null) || fs=$(df -T "$r" 2>/dev/null | awk 'NR==2 {print $2}')
echo "fstype=$fs"
if [ ! -f "$r/${RAM_MARKER}" ] && [ ${force} != 1 ]; then echo result=notOurs; exit 0; fi
case "$fs" in tmpfs|ramfs) ;; *) if [ ${force} != 1 ]; then echo result=notRam; exit 0; fi ;; esac
kb=$(du -sk "$r" 2>/dev/null | awk '{print $1}')
rm -rf -- "$r" || exit 6
echo "kb=$kb"
echo result=wiped`,
    { what: { step: 'ram-wipe' } },
  );
  const kv = keyValues(r.stdout);
  const resolved = kv.get('resolved') ?? '';
  switch (kv.get('result')) {
    case 'absent':
      return { kind: 'absent' };
    case 'wiped':
      return { kind: 'wiped', bytes: Number(kv.get('kb') ?? 0) * 1024, resolved };
    case 'notOurs':
      return { kind: 'notOurs', resolved };
    case 'notRam':
      return { kind: 'notRam', resolved, fsType: kv.get('fstype') ?? 'unknown' };
    default:
      return { kind: 'refused', resolved };
  }
}
