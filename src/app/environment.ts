// A portable environment, written once for both front ends: capture a box's environment into
// a local folder, read that folder back (this format and the two older ones), and rebuild it in
// a fresh env on another box. Returns data; the CLI and the extension put it into words.
//
// The folder (format 2):
//   gpu-rent-env.json   facts: { format: "gpu-rent-env", version: 2, source, python, torch, driver … }
//   requirements.txt    the pip packages: what the rebuild installs (edit it freely)
//   environment.yml     the conda export, when the box had conda (edit or delete it)
// Older folders still read: the CLI's gpu-rent-env.json version 1 and the extension's
// snapshot.json version 1 (both with the package lists inline; files beside them win).
import { writeFileAtomic } from './atomicWrite';
import { lstat, mkdir, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  captureMeta,
  checkRebuildInputs,
  parseEnvCaptureFile,
  type EnvCapture,
  type RebuildInputs,
  type SnapshotProblem,
} from '../core/guards/environment';
import type { RemoteConnection } from '../remote/connection';
import { captureEnvironment, startRebuild, type RebuildStarted } from '../remote/guards/environment';
import { readEnvironmentYaml } from '../remote/guards/environment-yml';

export { describeRebuildProblem, planRebuild, RebuildRefused, type RebuildStarted } from '../remote/guards/environment';
export type { EnvCapture, RebuildProblem, RequirementProblem, DroppedRequirement } from '../core/guards/environment';

export const CAPTURE_FILE = 'gpu-rent-env.json';
/** What the extension wrote before format 2 (in .gpu-rent/env/<instance>/). */
export const LEGACY_SNAPSHOT_FILE = 'snapshot.json';
export const REQUIREMENTS_FILE = 'requirements.txt';
export const ENVIRONMENT_FILE = 'environment.yml';
/** Larger files are not a capture: refused before reading. */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

export type CaptureFormat = 'gpu-rent-env@2' | 'gpu-rent-env@1' | 'snapshot@1';

export interface ReadCapture {
  dir: string;
  format: CaptureFormat;
  /** The JSON file it was read from. */
  file: string;
  capture: EnvCapture;
  /** Where the package lists came from: the file beside the JSON (the user's edits included), or the copy inside a format-1 JSON. */
  from: { requirements: 'file' | 'inline' | 'none'; environmentYml: 'file' | 'inline' | 'none' };
}

export type CaptureReadErrorCode = 'noCapture' | 'unreadable' | 'notJson' | 'invalid' | 'tooLarge';

/** Why a folder could not be read as a capture; `problems` for 'invalid'. */
export class CaptureReadError extends Error {
  constructor(
    readonly code: CaptureReadErrorCode,
    readonly path: string,
    readonly problems: SnapshotProblem[] = [],
    detail = '',
  ) {
    super(
      code === 'noCapture'
        ? `${path} has no ${CAPTURE_FILE} (or an older ${LEGACY_SNAPSHOT_FILE})`
        : code === 'invalid'
          ? `${path} is not an environment capture: ${problems.map((p) => `${p.path || 'file'} ${p.problem}`).join(', ')}`
          : code === 'tooLarge'
            ? `${path} is too large for a capture`
            : code === 'notJson'
              ? `${path} is not valid JSON${detail ? ` (${detail})` : ''}`
              : `cannot read ${path}${detail ? ` (${detail})` : ''}`,
    );
    this.name = 'CaptureReadError';
  }
}

/** Captures the box's environment; nothing is written. `source` names the box for the files (no secrets). */
export async function capture(conn: RemoteConnection, opts: { source: string; now?: () => number; timeoutMs?: number }): Promise<EnvCapture> {
  const { version: _v, ...rest } = await captureEnvironment(conn, opts.source, { now: opts.now, timeoutMs: opts.timeoutMs });
  return rest;
}

/** Reads a regular file (never through a link); undefined when it is absent. */
async function readPlain(path: string): Promise<string | undefined> {
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
    throw new CaptureReadError('unreadable', path, [], e.code ?? e.message);
  });
  if (!st) return undefined;
  if (!st.isFile()) throw new CaptureReadError('unreadable', path, [], 'not a regular file');
  if (st.size > MAX_FILE_BYTES) throw new CaptureReadError('tooLarge', path);
  const fh = await open(path, 'r').catch((e: NodeJS.ErrnoException) => {
    throw new CaptureReadError('unreadable', path, [], e.code ?? e.message);
  });
  try {
    const buf = Buffer.alloc(Math.min(st.size, MAX_FILE_BYTES) + 1);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    if (bytesRead > MAX_FILE_BYTES) throw new CaptureReadError('tooLarge', path);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** Which JSON file makes `dir` a capture (the new name first); undefined when none. */
export async function captureFileOf(dir: string): Promise<string | undefined> {
  for (const name of [CAPTURE_FILE, LEGACY_SNAPSHOT_FILE]) {
    const st = await lstat(join(dir, name)).catch(() => undefined);
    if (st?.isFile()) return join(dir, name);
  }
  return undefined;
}

/**
 * Reads a capture folder in any of the three formats. The files beside the JSON are what a
 * rebuild uses: an edited requirements.txt or environment.yml wins over the format-1 copy
 * inside the JSON (a deleted environment.yml in format 2 means no conda file).
 */
export async function readCapture(dir: string): Promise<ReadCapture> {
  const file = await captureFileOf(dir);
  if (!file) throw new CaptureReadError('noCapture', dir);
  const text = (await readPlain(file))!;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new CaptureReadError('notJson', file, [], (e as Error).message);
  }
  const parsed = parseEnvCaptureFile(json);
  if (!parsed.ok) throw new CaptureReadError('invalid', file, parsed.problems);
  const reqFile = await readPlain(join(dir, REQUIREMENTS_FILE));
  const ymlFile = await readPlain(join(dir, ENVIRONMENT_FILE));
  const legacy = file.endsWith(LEGACY_SNAPSHOT_FILE);
  if (parsed.version === 2) {
    return {
      dir,
      file,
      format: 'gpu-rent-env@2',
      capture: { ...stripMeta(parsed.meta), requirements: reqFile ?? '', environmentYml: ymlFile ?? null },
      from: { requirements: reqFile === undefined ? 'none' : 'file', environmentYml: ymlFile === undefined ? 'none' : 'file' },
    };
  }
  const { version: _v, ...snap } = parsed.snapshot;
  const inlineYml = snap.environmentYml;
  return {
    dir,
    file,
    format: legacy ? 'snapshot@1' : 'gpu-rent-env@1',
    capture: { ...snap, requirements: reqFile ?? snap.requirements, environmentYml: ymlFile ?? inlineYml },
    from: { requirements: reqFile !== undefined ? 'file' : 'inline', environmentYml: ymlFile !== undefined ? 'file' : inlineYml !== null ? 'inline' : 'none' },
  };
}

function stripMeta(m: ReturnType<typeof captureMeta>): Omit<EnvCapture, 'requirements' | 'environmentYml'> {
  const { format: _f, version: _v, ...rest } = m;
  return rest;
}

const writeAtomic = (path: string, text: string) => writeFileAtomic(path, text, { mode: 0o644 });

/**
 * Writes a capture into `dir` (format 2), creating it. An environment.yml left from an
 * earlier capture without conda is removed, so the folder says exactly what was captured.
 * Returns the file names written.
 */
export async function writeCapture(dir: string, c: EnvCapture): Promise<{ dir: string; files: string[] }> {
  await mkdir(dir, { recursive: true });
  const files = [CAPTURE_FILE, REQUIREMENTS_FILE];
  await writeAtomic(join(dir, CAPTURE_FILE), JSON.stringify(captureMeta(c), null, 2) + '\n');
  await writeAtomic(join(dir, REQUIREMENTS_FILE), c.requirements);
  if (c.environmentYml) {
    await writeAtomic(join(dir, ENVIRONMENT_FILE), c.environmentYml);
    files.push(ENVIRONMENT_FILE);
  } else await rm(join(dir, ENVIRONMENT_FILE), { force: true });
  // A format-1 snapshot.json left here would describe an older capture.
  await rm(join(dir, LEGACY_SNAPSHOT_FILE), { force: true });
  return { dir, files };
}

/** The capture folders directly under `parent` (the extension's .gpu-rent/env), by name. */
export async function listCaptures(parent: string): Promise<{ name: string; dir: string; file: string }[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const out: { name: string; dir: string; file: string }[] = [];
  for (const name of names.sort()) {
    const dir = join(parent, name);
    const file = (await lstat(dir).catch(() => undefined))?.isDirectory() ? await captureFileOf(dir) : undefined;
    if (file) out.push({ name, dir, file });
  }
  return out;
}

/**
 * The checks a rebuild makes, without a box: ask the user about `problems` (pip options,
 * URL credentials, a bad probed value) before connecting, and pass `allowPipOptions` when
 * they agreed to the requirement lines.
 */
export function checkRebuild(c: EnvCapture, opts: { envName: string; allowPipOptions?: boolean }): RebuildInputs {
  return checkRebuildInputs(c, { ...opts, readYaml: readEnvironmentYaml });
}

/**
 * Rebuilds the capture in a fresh env (conda when the box has it, else a venv) as the detached
 * job `env-NAME`, with torch for the new box's driver. Throws RebuildRefused when a check fails.
 */
export async function rebuild(conn: RemoteConnection, c: EnvCapture | ReadCapture, opts: { envName: string; allowPipOptions?: boolean; timeoutMs?: number; env?: Record<string, string>; before?: string }): Promise<RebuildStarted> {
  const cap = 'capture' in c && 'format' in c ? c.capture : (c as EnvCapture);
  return startRebuild(conn, cap, opts.envName, { allowPipOptions: opts.allowPipOptions, timeoutMs: opts.timeoutMs, env: opts.env, before: opts.before });
}
