// What sync takes and gives: the connection it needs, its options, its report and its
// progress events. engine.ts (and index.ts) re-export all of it.
import type { SFTPWrapper } from 'ssh2';
import type { Skip } from './list';
import type { SkipReason } from './names';
import type { ExecResult } from './remote-hash';

/** What sync needs from a connection; a warm pooled connection satisfies it as is. */
export interface SyncRemote {
  /** An SFTP session. Sync does not end it: it belongs to whoever gave it. */
  sftp(): Promise<SFTPWrapper>;
  /** Runs a command on the box and collects its output (sync's commands need no login shell). */
  exec(command: string, opts?: { timeoutMs?: number; login?: boolean; stdin?: Promise<string | undefined>; signal?: AbortSignal }): Promise<ExecResult>;
  /**
   * Runs a command (no login shell) with `stdin`, handing its stdout over as it arrives. Where
   * given, many small files come down in one tar stream (stream-small.ts); else file by file.
   * A promise from `onStdout` asks for backpressure: no more stdout until it settles. Where
   * `onStderr` is taken, the stream's own command hashes the files it sent (on stderr).
   */
  stream?(command: string, opts: { stdin: Buffer | Promise<Buffer | undefined> | AsyncIterable<Buffer>; onStdout: (chunk: Buffer) => unknown; onStderr?: (chunk: Buffer) => void; signal?: AbortSignal; timeoutMs?: number }): Promise<{ code: number | null }>;
}

export interface SyncOptions {
  remoteDir: string;
  localDir: string;
  /**
   * A folder the local folder must really be inside (links resolved), e.g. the task file's
   * folder for a launch's `checkpoints.local`: a committed link `ck -> ~/.ssh` is refused
   * ('local-outside') before anything is made or written there.
   */
  within?: string;
  /** Identity of the remote folder for the state file (user@host:port); the folder's real path is appended. */
  source?: string;
  /** Only the newest N complete top-level entries (files or folders) of the remote folder. */
  keepLast?: number;
  /** Remove local files this tool synced earlier that are gone from the box (or fell out of --keep-last). */
  delete?: boolean;
  /** A file counts as finished once unchanged for this long (seconds, by the box's clock). Default 5. */
  settleSeconds?: number;
  /** Wait (once, at most the settle time) for files still being written instead of skipping them. Default true. */
  waitForSettle?: boolean;
  /** Big files (4 MiB and up) pulled at once; small files go 64 times as many at once. Default 4. */
  concurrency?: number;
  inFlight?: number;
  chunkBytes?: number;
  stallMs?: number;
  signal?: AbortSignal;
  /**
   * Also SHA-256 every big file on the box (a second read of it there). By default a big file
   * is checked by its identity on the box instead: same inode, size and nanosecond change time
   * before the first byte and after the last (see BoxIdentity); the box hashes it only where
   * stat cannot say, or the file changed within the last seconds.
   */
  boxHash?: boolean;
  /**
   * Gzip the tar streams that carry small files (true) or send them as they are (false).
   * Default: as they are for a box that answers like one on loopback or a LAN (stream-small.ts
   * nearBox), gzipped otherwise. The CLI takes it from GPU_RENT_STREAM_GZIP=1 or 0.
   */
  streamGzip?: boolean;
  /**
   * Flush each file to the local disk (fsync) before it is renamed into place, so a verified
   * copy survives a crash of this computer at once. Off by default, as with scp and rsync:
   * the OS writes it back within seconds, and a copy cut short by a crash has the wrong size,
   * which the next pass sees and pulls again. The extension's Sync Checkpoints and the end
   * actions that power off or release the box turn it on (the box's copy may be gone after
   * them); the CLI leaves it to `--fsync`.
   */
  durable?: boolean;
  /**
   * Put the box's version over local copies the user changed since the last sync (or that
   * sync never wrote). Off by default: such a local file is kept and the box's version is
   * saved beside it as "NAME (box copy DATE).EXT" (SyncReport.kept).
   */
  force?: boolean;
  /** Local platform for name rules (default: this process's). */
  platform?: string;
  /** Pull compressible big files through the box's gzip (default true; weights, archives and media never). */
  compress?: boolean;
  /** One line per decision worth a log line (a compressed stream refused, so the file came uncompressed). */
  log?: (line: string) => void;
}

export interface SyncReport {
  /** Files written (new or changed) and their bytes read from the box. */
  files: number;
  bytes: number;
  skipped: Skip[];
  seconds: number;
  /** Local files found identical by hash and kept (no transfer). */
  verified: number;
  unchanged: number;
  deleted: string[];
  pulled: string[];
  /** Stopped by the signal: unfinished files are left as `.part` only. */
  interrupted: boolean;
  /** Of `files`, those checked by their unchanged identity on the box instead of the box's SHA-256. */
  byIdentity: number;
  /**
   * Local files changed since the last sync (or never written by it) that the box's version
   * would have replaced: kept, the box's version saved beside them (`boxCopy`, relative).
   */
  kept: { name: string; boxCopy: string }[];
  /** Such files whose current box version was saved beside them on an earlier pass (not pulled again). */
  keptEarlier: number;
  /**
   * Local files sync had written, unchanged here since, that the box's newer version replaced
   * (a rerun on the same box writing a checkpoint name again): the earlier copy was moved to
   * `previous` (`.gpu-rent-previous/NAME`, relative), one earlier version per file.
   */
  replaced: { name: string; previous: string }[];
  /** Files pulled through the box's gzip: their original bytes and the compressed bytes that crossed the link. */
  compressed?: { files: number; rawBytes: number; wireBytes: number };
}

export type SyncProgress =
  | { kind: 'listed'; files: number; toPull: number }
  | { kind: 'waiting-to-settle'; seconds: number; files: number }
  | { kind: 'file-start'; name: string; size: number; from: number }
  | { kind: 'bytes'; name: string; done: number; size: number }
  | { kind: 'file-done'; name: string; size: number; bytes: number; verifiedOnly: boolean; keptAs?: string }
  | { kind: 'part-discarded'; name: string; size: number; why: 'prefix-mismatch' | 'no-remote-hash' | 'too-long' }
  | { kind: 'skipped'; name: string; reason: SkipReason }
  | { kind: 'deleted'; name: string };
