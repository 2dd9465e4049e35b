// The ledger of finished runs (issue 42 item 2): one JSON line per run in <dir>/runs.jsonl, the
// folder being the CLI's config home ($GPU_RENT_HOME, default ~/.config/gpu-rent) or the
// extension's globalStorageUri folder. Why JSON lines and not SQLite: the extension host runs in
// VS Code's Electron (its own Node ABI; Node 18 in VS Code 1.85), so a native addon built for
// this machine's Node (better-sqlite3) does not load there, and node:sqlite needs Node 22.5+;
// sql.js (WASM) would rewrite the whole database per run. An append-only file works in every
// Node, is readable by people and by `jq`, and a run is one write:
// - append: O_APPEND, the whole line in one write() (two processes' lines never interleave on a
//   local file system), then fsync before recordRun returns (a finished run survives a crash);
// - a writer killed midway leaves at most a torn last line: the next append starts on a new line,
//   and readers skip (and count) every line that is not a valid record (zod schema per line);
// - bounded: a line is at most MAX_LINE_BYTES, and a reader reads at most the last READ_CAP bytes.
import { randomBytes } from 'node:crypto';
import { mkdir, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { buildRecord, recordProblem, RunRecordSchema, type RunFacts, type RunRecord } from '../../core/ledger/record';

export const LEDGER_FILE = 'runs.jsonl';
export const MAX_LINE_BYTES = 256 * 1024;
export const READ_CAP = 64 * 1024 * 1024;

export function ledgerPath(dir: string): string {
  return join(dir, LEDGER_FILE);
}

/** `facts` from a front end (turned into a record here) or a record already built. */
function asRecord(x: RunFacts | RunRecord): RunRecord {
  if ('v' in x) {
    const problem = recordProblem(x);
    if (problem) throw new Error(`run record: ${problem}`);
    return RunRecordSchema.parse(x);
  }
  return buildRecord(x, randomBytes(4).toString('hex'));
}

/**
 * Appends one finished run to the ledger in `dir` (made 0700 if missing; the file 0600) and
 * syncs it to disk. Returns the record as kept. Throws on a record the schema refuses (nothing
 * is written) or a failed write.
 */
export async function recordRun(dir: string, run: RunFacts | RunRecord): Promise<RunRecord> {
  const record = asRecord(run);
  const line = Buffer.from(JSON.stringify(record) + '\n', 'utf8');
  if (line.length > MAX_LINE_BYTES) throw new Error(`run record: ${line.length} bytes, over the ledger's ${MAX_LINE_BYTES}-byte line`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const fh = await open(ledgerPath(dir), 'a+', 0o600);
  try {
    // A writer killed midway left a line without its newline: start on a fresh line.
    const { size } = await fh.stat();
    let buf = line;
    if (size > 0) {
      const last = Buffer.alloc(1);
      await fh.read(last, 0, 1, size - 1);
      if (last[0] !== 0x0a) buf = Buffer.concat([Buffer.from('\n'), line]);
    }
    const { bytesWritten } = await fh.write(buf, 0, buf.length);
    if (bytesWritten !== buf.length) throw new Error(`run record: only ${bytesWritten} of ${buf.length} bytes written (disk full?)`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  return record;
}

export interface LedgerRead {
  /** Valid records, oldest first (a repeated id: the first kept). */
  runs: RunRecord[];
  /** Lines that are not a valid record (a torn last line, a hand edit), with why; never trusted. */
  skipped: { line: number; problem: string }[];
  /** True when the file was over READ_CAP and only its end was read. */
  truncated: boolean;
}

/** Reads the ledger in `dir`; a missing file is an empty ledger. */
export async function readRuns(dir: string): Promise<LedgerRead> {
  const path = ledgerPath(dir);
  const size = await stat(path).then((s) => s.size, (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? -1 : Promise.reject(e)));
  if (size < 0) return { runs: [], skipped: [], truncated: false };
  const truncated = size > READ_CAP;
  const from = truncated ? size - READ_CAP : 0;
  const buf = Buffer.alloc(size - from);
  const fh = await open(path, 'r');
  try {
    let at = 0;
    while (at < buf.length) {
      const { bytesRead } = await fh.read(buf, at, buf.length - at, from + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
  } finally {
    await fh.close();
  }
  const lines = buf.toString('utf8').split('\n');
  if (truncated) lines.shift(); // the first line read is cut
  const runs: RunRecord[] = [];
  const skipped: LedgerRead['skipped'] = [];
  const seen = new Set<string>();
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    const line = i + 1;
    if (text.length > MAX_LINE_BYTES) return skipped.push({ line, problem: 'line too long' });
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return skipped.push({ line, problem: 'not JSON (a torn write?)' });
    }
    const r = RunRecordSchema.safeParse(value);
    if (!r.success) return skipped.push({ line, problem: recordProblem(value) ?? 'invalid' });
    if (seen.has(r.data.id)) return skipped.push({ line, problem: `repeated id ${r.data.id}` });
    seen.add(r.data.id);
    runs.push(r.data);
  });
  return { runs, skipped, truncated };
}
