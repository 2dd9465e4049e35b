// Push's many-small-files path: new small files go up as one tar stream per batch (gzip -1,
// unpacked by the box's own tar into their NAME.part files, with the local mtimes), instead of
// an SFTP open, write and close each. The same command then hashes the .part files; each
// must equal the SHA-256 of the bytes read here, and the verified ones are renamed into place
// in one burst of SFTP renames, none of which replaces a name that exists on the box by then
// (push's usual check, newer or not, decides for those).
// Names are ours (checked when the local folder was walked); the box unpacks only what we
// made. A box without GNU tar or gzip, or an unpack that fails, leaves the batch to SFTP.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { SFTPWrapper } from 'ssh2';
import { MAX_LIST_ENTRIES, sftpRequest } from './list';
import { EXEC_LIST_HERE, parseExecListing, type ExecListing } from './list-exec';
import { DEFAULT_EXEC_OUTPUT_BYTES } from '../exec-channel';
import { PART_SUFFIX } from './names';
import { HASH_ARGS, parseBatchHashOutput, type HashAnswer } from './remote-hash';
import { shQuote } from '../shell';
import type { SyncRemote } from './types';

import { addToStream, fitsStream, PUSH_STREAM_MIN_FILES } from './push-plan';

export { PUSH_STREAM_MIN_FILES } from './push-plan';

export interface StreamFile {
  rel: string;
  path: string;
  size: number;
  mtime: number;
}

export interface Streamed {
  digest: string;
  part: string;
  target: string;
  /** The box's SHA-256 of the unpacked .part. */
  box: HashAnswer;
}

const BLOCK = 512;

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(name: string, size: number, mtime: number, type: '0' | 'x'): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(0o644, 8), 100, 'latin1');
  h.write(octal(0, 8), 108, 'latin1');
  h.write(octal(0, 8), 116, 'latin1');
  h.write(octal(size, 12), 124, 'latin1');
  h.write(octal(mtime, 12), 136, 'latin1');
  h.write('        ', 148, 'latin1');
  h.write(type, 156, 'latin1');
  h.write('ustar\0' + '00', 257, 'latin1');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148, 'latin1');
  return h;
}

const pad = (n: number) => Buffer.alloc((BLOCK - (n % BLOCK)) % BLOCK);

/** A POSIX tar of `members` (a pax record carries any name longer than 100 bytes). */
export function tarOf(members: ReadonlyArray<{ name: string; data: Buffer; mtime: number }>): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    let short = m.name;
    if (Buffer.byteLength(m.name) > 100) {
      const body = ` path=${m.name}\n`;
      // The record's length counts its own digits.
      let len = Buffer.byteLength(body) + 1;
      while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
      const rec = Buffer.from(`${len}${body}`, 'utf8');
      parts.push(header('PaxHeaders/long', rec.length, m.mtime, 'x'), rec, pad(rec.length));
      short = 'long-name';
    }
    parts.push(header(short, m.data.length, m.mtime, '0'), m.data, pad(m.data.length));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** Unpacks the stream under `root`, then hashes `parts` (relative to it). */
export function unpackCommand(root: string, parts: readonly string[]): string {
  const script = `cd -- "$1" || exit 3; shift; gzip -dc | tar -x -f - --no-same-owner --no-same-permissions 2>/dev/null || exit 4; ${HASH_ARGS}`;
  return `/bin/sh -c ${shQuote(script)} sh ${[root, ...parts].map(shQuote).join(' ')}`;
}

/** A folder "$1" already there: `old`, then its listing (list-exec.ts's answer), and the command ends. */
const OLD_FOLDER_LISTED = `if [ -d "$1" ]; then cd -P -- "$1" 2>/dev/null || exit 3; echo old; ${EXEC_LIST_HERE}; exit 5; fi; `;

/** The listing after a command's `old` or `new` line (undefined where it is not whole: SFTP lists). */
const listingAfterState = (r: { code: number | null; out: string }) => parseExecListing({ code: r.code, stdout: r.out.slice(4) }, MAX_LIST_ENTRIES);

/**
 * The first stream of a push, sent before the box's folder was listed. Where `root` is there
 * (a push again): says `old` and lists it (list-exec.ts's answer), reading nothing; the files
 * wait for the plan. Where it is not: says `new` at once, makes it (and, through tar, every
 * folder below it), unpacks each NAME.part from stdin, then says per name whether NAME existed
 * on the box by then (`e`: its .part is removed again, push's usual checks decide) or not
 * (`n`), and hashes the .part of each new one. A new folder holds only what the stream put
 * there, so push need not list it: folder creation, listing and upload in one round trip.
 */
export function firstUnpackCommand(root: string, parts: readonly string[]): string {
  // Every .part is hashed (one process for all); those whose name existed are removed after.
  const script =
    OLD_FOLDER_LISTED +
    'mkdir -p -- "$1" && cd -- "$1" || exit 3; echo new; shift; gzip -dc | tar -x -f - --no-same-owner --no-same-permissions 2>/dev/null || exit 4; ' +
    'e=; for p do t=${p%.part}; if [ -e "$t" ] || [ -L "$t" ]; then echo e; e="${e}e"; else echo n; e="${e}n"; fi; done; ' +
    `(${HASH_ARGS}); for p do case $e in e*) rm -f -- "$p";; esac; e=\${e#?}; done`;
  return `/bin/sh -c ${shQuote(script)} sh ${[root, ...parts].map(shQuote).join(' ')}`;
}

/**
 * The folder's command where no first stream goes (too few small files: a push of a few big
 * ones): it makes the folder or lists the one there, in one round trip beside the SFTP
 * session's start, so that neither an SFTP listing nor a mkdir and a realpath wait for SFTP
 * before the first byte. Says `old` and lists the folder, or `new` and the listing's header
 * alone (its real path, nothing in it).
 */
export function folderCommand(root: string): string {
  const script = `${OLD_FOLDER_LISTED}mkdir -p -- "$1" && cd -P -- "$1" || exit 3; echo new; ${EXEC_LIST_HERE}`;
  return `/bin/sh -c ${shQuote(script)} sh ${shQuote(root)}`;
}

/**
 * Runs folderCommand: `ran` where the box answered whole (the folder is there now), `listing`
 * its names (an empty one with the real path where it made the folder: `onFolder` hears `new`
 * with that path). Any other answer leaves the folder to SFTP, as when no command ran; it is
 * never taken as a failed stream (streams still go).
 */
async function folderFirst<F extends StreamFile>(stream: NonNullable<SyncRemote['stream']>, root: string, signal: AbortSignal | undefined, onFolder: ((state: 'new' | 'old', realRoot?: string) => void) | undefined): Promise<FirstStream<F>> {
  const out: FirstStream<F> = { sent: new Map(), existed: [], left: [], ran: false, failed: false };
  const r = await run(stream, folderCommand(root), Buffer.alloc(0), DEFAULT_EXEC_OUTPUT_BYTES, signal);
  const said = r?.out.startsWith('old\n') ? 'old' : r?.out.startsWith('new\n') ? 'new' : undefined;
  if (!r || !said) return out;
  const listing = listingAfterState(r);
  if (said === 'new' && (typeof listing !== 'object' || listing.dirs.get('')!.length)) return out;
  out.ran = true;
  out.listing = listing;
  onFolder?.(said, said === 'new' && typeof listing === 'object' ? listing.root : undefined);
  return out;
}

/** What the first line of a command's stdout decides: heard at once; `sendStdin`: stdin is held back until it is in, and sent only if this says so (else only its end). */
interface FirstLine {
  heard(line: string): void;
  sendStdin?(line: string): boolean;
}

/** Runs `command` on the box and gives its stdout, at most `cap` bytes (more: undefined). */
async function run(stream: NonNullable<SyncRemote['stream']>, command: string, stdin: Buffer, cap: number, signal?: AbortSignal, first?: FirstLine): Promise<{ code: number | null; out: string } | undefined> {
  const chunks: Buffer[] = [];
  let n = 0;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let gate: ((s: Buffer | undefined) => void) | undefined;
  const held = first?.sendStdin ? new Promise<Buffer | undefined>((resolve) => (gate = resolve)) : undefined;
  let onFirstLine = first
    ? (line: string) => {
        first.heard(line);
        gate?.(first.sendStdin?.(line) ? stdin : undefined);
      }
    : undefined;
  try {
    const r = await stream(command, {
      stdin: held ?? stdin,
      signal: stop.signal,
      timeoutMs: 60_000 + Math.ceil(stdin.length / 50_000),
      onStdout: (c) => {
        n += c.length;
        if (n > cap) stop.abort();
        else chunks.push(c);
        if (onFirstLine && c.includes(10)) {
          const all = Buffer.concat(chunks);
          onFirstLine(all.subarray(0, all.indexOf(10)).toString('utf8'));
          onFirstLine = undefined;
        }
      },
    });
    return n > cap ? undefined : { code: r.code, out: Buffer.concat(chunks).toString('utf8') };
  } catch {
    return undefined;
  } finally {
    gate?.(undefined);
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Renames verified streamed files into place, all requests in one burst. A plain SFTP rename,
 * which OpenSSH's sftp-server makes with link() and unlink(), never replaces a file that
 * exists by now; those, and any rename that fails, are left to push's usual publish step
 * (which compares mtimes). Resolves with the names done.
 */
export async function renameUp(sftp: SFTPWrapper, files: ReadonlyArray<{ rel: string; part: string; target: string }>): Promise<Set<string>> {
  const ok = await Promise.all(files.map((f) => sftpRequest<void>(sftp, 'rename', (cb) => sftp.rename(f.part, f.target, cb)).then(() => true, () => false)));
  return new Set(files.filter((_, k) => ok[k]).map((f) => f.rel));
}

function readOrUndefined(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Reads a batch: its tar members and what each delivered file's .part will hold; a file that changed while read is left. */
function readBatch<F extends StreamFile>(root: string, batch: readonly F[], left: F[]): { members: Array<{ name: string; data: Buffer; mtime: number }>; ok: Array<[F, Streamed]> } {
  const members: Array<{ name: string; data: Buffer; mtime: number }> = [];
  const ok: Array<[F, Streamed]> = [];
  for (const f of batch) {
    // The bytes as read, and the file unchanged around the read (else SFTP takes it and says so).
    // Plain system calls on this thread: two trips through the thread pool per file cost
    // about 1 ms each here (1000 files: a second before the first byte left).
    const data = readOrUndefined(f.path);
    const now = lstatSync(f.path, { throwIfNoEntry: false });
    if (!data || data.length !== f.size || !now || now.size !== f.size || Math.floor(now.mtimeMs / 1000) !== f.mtime) {
      left.push(f);
      continue;
    }
    members.push({ name: f.rel + PART_SUFFIX, data, mtime: f.mtime });
    const target = `${root}/${f.rel}`;
    ok.push([f, { digest: createHash('sha256').update(data).digest('hex'), part: target + PART_SUFFIX, target, box: { full: undefined, prefix: undefined } }]);
  }
  return { members, ok };
}

/** At most this much file data goes in the first stream, sent before the box is listed (all of it wasted on a push of unchanged files). */
export const FIRST_STREAM_BYTES = 1024 * 1024;

export interface FirstStream<F> {
  /** Sent and unpacked, the box's hash of each .part given; nothing was at their path on the box. */
  sent: Map<F, Streamed>;
  /** Something was at their path on the box: their .part was removed, push's usual checks decide. */
  existed: F[];
  /** Not in the stream, or the stream failed: push's usual path. */
  left: F[];
  /** Did the stream (or, with no stream, the folder's command) run, so the folder is there? */
  ran: boolean;
  /** A stream was tried and failed (the box cannot unpack it): the pass sends no more. */
  failed: boolean;
  /**
   * The folder was there (`old`): nothing was sent, and this is the box's listing of it as the
   * stream found it (undefined where not whole: SFTP lists; 'too-many' past the entry cap).
   */
  listing?: ExecListing | 'too-many' | undefined;
}

/**
 * The first files of a push, sent in one stream before the box's folder is listed (folded
 * into the command: it makes the folder, unpacks, and says which names existed). `root` is
 * the folder as given (relative to the login's home, or absolute). `onFolder` hears, as soon
 * as the box says it and before the upload ends, whether the folder was there (`old`) or was
 * made by this stream (`new`); it is not called when the box says neither. Where too few small
 * files make a stream, the folder's command (folderCommand) runs instead and `onFolder` hears
 * its answer, with the folder's real path where it made it.
 */
export async function streamFirst<F extends StreamFile>(remote: SyncRemote, root: string, files: readonly F[], signal?: AbortSignal, onFolder?: (state: 'new' | 'old', realRoot?: string) => void): Promise<FirstStream<F>> {
  const out: FirstStream<F> = { sent: new Map(), existed: [], left: [], ran: false, failed: false };
  const stream = remote.stream?.bind(remote);
  if (!stream) return { ...out, left: [...files] };
  if (files.length < PUSH_STREAM_MIN_FILES) return { ...(await folderFirst<F>(stream, root, signal, onFolder)), left: [...files] };
  const batch: F[] = [];
  const acc = { files: 0, bytes: 0, names: 0 };
  for (const f of files) {
    if (!fitsStream(acc, f, FIRST_STREAM_BYTES) || f.size > FIRST_STREAM_BYTES) {
      out.left.push(f);
      continue;
    }
    batch.push(f);
    addToStream(acc, f);
  }
  const { members, ok } = readBatch(root, batch, out.left);
  if (ok.length < PUSH_STREAM_MIN_FILES) {
    const folder = await folderFirst<F>(stream, root, signal, onFolder);
    return { ...folder, left: [...out.left, ...ok.map(([f]) => f)] };
  }
  const gz = gzipSync(tarOf(members), { level: 1 });
  let said: string | undefined;
  const heard = (line: string) => {
    said = line;
    if (line === 'new' || line === 'old') onFolder?.(line);
  };
  // The bytes go up once the box says the folder is new: a folder already there is listed
  // instead, and nothing crosses a slow uplink that the plan may not need.
  const sendStdin = (line: string) => line === 'new';
  const r = await run(stream, firstUnpackCommand(root, members.map((m) => m.name)), gz, ok.length * 82 + 1024 + DEFAULT_EXEC_OUTPUT_BYTES, signal, { heard, sendStdin });
  if (said === 'old') {
    // Nothing was sent; a listing past the output cap or cut short is SFTP's to make.
    out.ran = true;
    out.left.push(...ok.map(([f]) => f));
    out.listing = r?.out.startsWith('old\n') ? listingAfterState(r) : undefined;
    return out;
  }
  out.ran = r?.code === 0;
  out.failed = !out.ran && !signal?.aborted;
  const lines = r?.code === 0 ? r.out.split('\n') : [];
  const flags = lines.slice(1, 1 + ok.length);
  const answers =
    (lines[0] === 'new' || lines[0] === 'old') && flags.length === ok.length && flags.every((l) => l === 'e' || l === 'n') ? parseBatchHashOutput(lines.slice(1 + ok.length).join('\n'), ok.length) : undefined;
  if (!answers) {
    out.failed = !signal?.aborted;
    out.left.push(...ok.map(([f]) => f));
    return out;
  }
  ok.forEach(([f, s], i) => {
    if (flags[i] === 'e') out.existed.push(f);
    else out.sent.set(f, { ...s, box: { full: answers[i], prefix: undefined } });
  });
  return out;
}

/**
 * Sends `batches` (small files, not on the box at the plan, cut into streams by the planner)
 * into their .part files under `root`, one stream per batch. Resolves with what each delivered
 * file's .part now holds (the SHA-256 of the bytes read here) and the files left for SFTP: a
 * batch whose unpack failed or that an interrupt kept back, or a file that changed while it
 * was read.
 */
export async function streamUp<F extends StreamFile>(remote: SyncRemote, root: string, batches: ReadonlyArray<readonly F[]>, signal?: AbortSignal): Promise<{ sent: Map<F, Streamed>; left: F[] }> {
  const sent = new Map<F, Streamed>();
  const left: F[] = [];
  const stream = remote.stream?.bind(remote);
  if (!stream || batches.reduce((n, b) => n + b.length, 0) < PUSH_STREAM_MIN_FILES) return { sent, left: batches.flat() };
  for (const batch of batches) {
    if (signal?.aborted) {
      left.push(...batch);
      continue;
    }
    const { members, ok } = readBatch(root, batch, left);
    if (!ok.length) continue;
    const gz = gzipSync(tarOf(members), { level: 1 });
    const r = await run(stream, unpackCommand(root, members.map((m) => m.name)), gz, ok.length * 80 + 1024, signal);
    const answers = r?.code === 0 ? parseBatchHashOutput(r.out, ok.length) : undefined;
    ok.forEach(([f, s], k) => {
      if (answers) sent.set(f, { ...s, box: { full: answers[k], prefix: undefined } });
      else left.push(f);
    });
  }
  return { sent, left };
}
